"""The one SQL store: every table under one MetaData, upgraded by Alembic migrations.

The ledger, the review, the review sample, the probes and the call cache are bounded contexts, each
defining its tables in its own module but all on :data:`metadata`; the schema a database is at is
Alembic's (``backend/sqlstore/migrations/versions``: the first revision is the previous release's schema, so a
database that release made upgrades in place). :func:`ensure_schema` is what every store calls on
opening a database: it upgrades to the newest revision under a lock (``pg_advisory_lock`` on
PostgreSQL, a lock file beside a SQLite file), and only reads when the database is already current,
so a read-only ledger still opens. A store at a revision this release does not know (a newer release
migrated it: a rolling deploy) is used as it is when it still holds this release's tables and columns,
else refused with "upgrade the workers first" (:mod:`backend.sqlstore.newer_store`); :func:`downgrade`
takes a store back to an older revision (docs/operations.md says what each step loses).
"""

from __future__ import annotations

import fcntl
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import Connection, Engine, MetaData, inspect, text
import sys
from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.newer_store import check_usable

metadata = MetaData()

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_ADVISORY_KEY = 0x1A8E1A0D17  # pg_advisory_lock key of label-audit's migrations
_head: str | None = None
_lock = threading.Lock()


def head_revision() -> str:
    """The newest migration's revision id (read once per process)."""
    global _head
    if _head is None:
        # heavy: alembic (~0.12 s), only for migrations; not loaded by label-audit --help
        from alembic.script import ScriptDirectory

        _head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    return _head


def known_revision(revision: str) -> bool:
    """``revision`` is one of this release's migrations (a newer release's is not)."""
    # heavy: alembic (~0.12 s), only for migrations; not loaded by label-audit --help
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    try:
        return ScriptDirectory(str(MIGRATIONS)).get_revision(revision) is not None
    except CommandError:  # alembic's ResolutionError is one
        return False


def current_revision(conn: Connection) -> str | None:
    """The database's revision (None: not under Alembic yet, e.g. made by the previous release, or empty)."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def ensure_schema(db_engine: Engine) -> None:
    """Bring the database to the newest schema; when it is already there this only reads its revision."""
    with db_engine.connect() as conn:
        current = current_revision(conn)
        if current is not None and current != head_revision() and not known_revision(current):
            check_usable(conn, metadata, revision=current, head=head_revision(),
                         where=db_engine.url.render_as_string(hide_password=True))
            return  # a newer release's store that still holds what this release uses: use it as it is
    if current != head_revision():
        with _lock:  # threads of one process; other processes wait on the database lock
            upgrade(db_engine)


def upgrade(db_engine: Engine, revision: str = "head") -> None:
    """Run the migrations up to ``revision`` (the previous release's databases included)."""
    # heavy: alembic (~0.12 s), only for migrations; not loaded by label-audit --help
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with _migration_lock(db_engine) as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
        conn.commit()


def downgrade(db_engine: Engine, revision: str) -> None:
    """Take the store back to ``revision`` (each step's ``downgrade``; what it loses: docs/operations.md)."""
    # heavy: alembic (~0.12 s), only for migrations; not loaded by label-audit --help
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with _migration_lock(db_engine) as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, revision)
        conn.commit()


@contextmanager
def _migration_lock(db_engine: Engine) -> Iterator[Connection]:
    """One migrating process at a time: two workers starting together both saw "no tables" and both
    created them (``table audit_results already exists``)."""
    if db_engine.dialect.name == "postgresql":
        with db_engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _ADVISORY_KEY})
            conn.commit()
            try:
                yield conn
            finally:
                conn.rollback()
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _ADVISORY_KEY})
                conn.commit()
        return
    database = db_engine.url.database
    if not database or database == ":memory:":
        with db_engine.connect() as conn:
            yield conn
        return
    with open(os.open(f"{database}.migrate.lock", os.O_RDWR | os.O_CREAT, 0o600)) as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            with db_engine.connect() as conn:
                yield conn
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> int:
    """``python -m backend.sqlstore.tables [URL] [--downgrade REVISION]``: upgrade the store at URL (default: the
    settings' ledger) to the newest revision, or take it back to REVISION."""

    args = list(sys.argv[1:] if argv is None else argv)
    target = None
    if "--downgrade" in args:
        at = args.index("--downgrade")
        if at + 1 >= len(args):
            print("--downgrade needs a revision, e.g. 0003_review_instances", file=sys.stderr)
            return 2
        target = args[at + 1]
        del args[at:at + 2]
    db_engine = make_db_engine(args[0] if args else None)
    if target is None:
        upgrade(db_engine)
    else:
        downgrade(db_engine, target)
    with db_engine.connect() as conn:
        print(f"{db_engine.url.render_as_string(hide_password=True)}: at revision {current_revision(conn)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
