"""Dialect-aware ``INSERT ... ON CONFLICT DO UPDATE`` for SQLite and PostgreSQL.

Both dialects support it natively; SQLAlchemy exposes it per dialect, so this picks the right one.
A re-run (or a retried, SIGKILLed) job therefore overwrites its own rows instead of duplicating them.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite


def upsert(conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]], *, keys: Sequence[str]) -> None:
    """Insert ``rows`` into ``table``, updating every non-key column where ``keys`` already exist."""
    if not rows:
        return
    name = conn.dialect.name
    if name == "postgresql":
        stmt = postgresql.insert(table)
    elif name == "sqlite":
        stmt = sqlite.insert(table)
    else:
        raise ValueError(f"the ledger supports SQLite and PostgreSQL, not {name!r}")
    update_cols = [c for c in rows[0] if c not in keys and c != "id"]
    stmt = stmt.on_conflict_do_update(
        index_elements=list(keys),
        set_={c: stmt.excluded[c] for c in update_cols},
    )
    conn.execute(stmt, list(rows))
