"""One way to open the SQL store (call cache, audit ledger): SQLite by default, PostgreSQL by URL.

SQLite gets WAL and a busy timeout so a CLI run, the web backend and RQ workers can share one file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text

from backend.common import defaults


def default_url() -> str:
    """The SQLite file under the default home (./.label-audit).

    The configured store (``DATABASE_URL``, ``LABEL_AUDIT_HOME``) is the settings' ``store_url``, which
    the edges (CLI commands, web app, worker start) resolve and pass: this module reads no environment.
    """
    path = Path(defaults.HOME) / "audit.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def normalize_url(url: str) -> str:
    """Accept plain ``postgresql://`` / ``postgres://`` URLs and route them to psycopg 3."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


def make_db_engine(url: str | None = None) -> Engine:
    """Create a SQLAlchemy engine; for SQLite, create the parent folder and enable WAL + busy timeout."""
    url = normalize_url(url) if url else default_url()
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("sqlite"):
        db_engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(db_engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout=30000")
            try:  # switching to WAL is a write: a read-only ledger must still open for reading
                cur.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:
                pass
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return db_engine
    return create_engine(url, pool_pre_ping=True)


def db_status(db_engine: Engine) -> str:
    """``ok``, ``read-only`` or ``unavailable (<error type>)``: what ``/health`` says of the ledger.

    Writability is asked, never tried on real rows: PostgreSQL reports ``transaction_read_only``;
    SQLite takes and releases the write lock (``BEGIN IMMEDIATE``), waiting at most half a second,
    since a busy writer (a worker) is not a fault.
    """
    try:
        if db_engine.dialect.name == "postgresql":
            with db_engine.connect() as conn:
                flag = conn.execute(text("SELECT current_setting('transaction_read_only')")).scalar()
            return "read-only" if flag == "on" else "ok"
        raw = db_engine.raw_connection()
        try:
            cur = raw.cursor()
            cur.execute("SELECT 1")
            cur.execute("PRAGMA busy_timeout=500")
            try:
                cur.execute("BEGIN IMMEDIATE")
                cur.execute("ROLLBACK")
            except sqlite3.OperationalError as exc:
                return "ok" if "locked" in str(exc) or "busy" in str(exc) else "read-only"
            finally:
                cur.execute("PRAGMA busy_timeout=30000")
        finally:
            raw.close()
    except Exception as exc:
        return f"unavailable ({type(exc).__name__})"
    return "ok"
