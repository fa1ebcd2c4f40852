"""One way to open the SQL store (call cache, audit ledger): SQLite by default, PostgreSQL by URL.

SQLite gets WAL and a busy timeout so a CLI run, the web backend and RQ workers can share one file.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event


def default_url() -> str:
    """``DATABASE_URL`` when set, else a SQLite file under ``$LABEL_AUDIT_HOME`` (./.label-audit)."""
    from backend.settings import Settings

    settings = Settings.from_env()
    if settings.database_url:
        return normalize_url(settings.database_url)
    path = settings.default_sqlite_path()
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
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return db_engine
    return create_engine(url, pool_pre_ping=True)
