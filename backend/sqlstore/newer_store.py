"""A store migrated by a newer release: used as it is when this release's tables are all still there.

In a rolling deploy the first process of the new release upgrades the store while processes of the
previous release still run, restart, or are started beside it. Alembic cannot upgrade a store whose
revision it does not know (``Can't locate revision``), and before this module every such process failed
on start. A newer revision that only adds (a table, a column that is nullable or has a server default)
leaves everything this release reads and writes in place, so the store is used as it is; one that
drops, renames or adds a required column is refused with what to do: upgrade the workers first. The
check is on the schema itself (reflected), not on a list of revisions: this release cannot know what a
later one called its revisions, only what it needs of the tables.
"""

from __future__ import annotations

from sqlalchemy import Connection, MetaData, inspect

__all__ = ["NewerStoreError", "missing_for", "check_usable"]


class NewerStoreError(ValueError):
    """The store is at a revision this release does not know and lacks what this release needs of it (a
    ValueError: the commands print it as their one error line, as any unusable setting)."""


def missing_for(conn: Connection, metadata: MetaData) -> list[str]:
    """What the store lacks of ``metadata``'s tables, or has that this release's rows cannot fill (empty: usable)."""
    inspector = inspect(conn)
    present = set(inspector.get_table_names())
    problems: list[str] = []
    for table in metadata.sorted_tables:
        if table.name not in present:
            problems.append(f"table {table.name} is missing")
            continue
        columns = {c["name"]: c for c in inspector.get_columns(table.name)}
        problems.extend(f"column {table.name}.{c.name} is missing" for c in table.columns if c.name not in columns)
        ours = {c.name for c in table.columns}
        problems.extend(
            f"column {table.name}.{name} is required and unknown to this release"
            for name, col in columns.items()
            if name not in ours and not col.get("nullable", True) and col.get("default") is None
            and col.get("autoincrement") is not True)
    return problems


def check_usable(conn: Connection, metadata: MetaData, *, revision: str, head: str, where: str) -> None:
    """Raise :class:`NewerStoreError` unless a store at ``revision`` (unknown here; this release's newest is
    ``head``) still holds everything of ``metadata`` that this release reads and writes."""
    problems = missing_for(conn, metadata)
    if problems:
        raise NewerStoreError(
            f"the store {where} is at revision {revision}, newer than this release knows (its newest is {head}), "
            f"and this release cannot use it ({'; '.join(problems[:3])}{' ...' if len(problems) > 3 else ''}): "
            "upgrade the workers first (every process that opens this store must run the release that "
            "migrated it; docs/operations.md, 'Rolling deploys and downgrades')")
