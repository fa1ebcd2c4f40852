"""Keep probe results in the audit database, so `audit-stats report` can show each member's gullibility.

One row per (run, member, condition, delimit setting), keyed by member id + condition + timestamp.
The report wants the *latest* run of each member: :func:`latest_probe_results` returns exactly that,
separately for the built-in probes and the planted-instruction probe (condition ``Planted``), so running
one does not hide the other.
Same SQL store as the call cache and the ledger (:func:`backend.sqlstore.connection.make_db_engine`).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Mapping

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Engine,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    and_,
    case,
    func,
    inspect,
    select,
)

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.tables import ensure_schema, metadata
from backend.probes.planted import PLANTED

probe_results = Table(
    "probe_results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("task", String(128), nullable=False),
    Column("member_id", String(STORE_COLUMN_CHARS), nullable=False),
    Column("condition", String(64), nullable=False),
    Column("delimit", Boolean, nullable=False),
    Column("n", Integer, nullable=False),
    Column("n_ok", Integer, nullable=False),
    Column("n_errors", Integer, nullable=False),
    Column("mae", Float),
    Column("share_positive", Float),
    Column("mean_p_positive", Float),
    Column("delta_mae", Float),
    Column("delta_share_positive", Float),
    Column("delta_p_positive", Float),
    Column("row_json", Text, nullable=False),
    Index("ix_probe_results_member_condition_time", "member_id", "condition", "created_at"),
)

_NUMBERS = ("n", "n_ok", "n_errors", "mae", "share_positive", "mean_p_positive",
            "delta_mae", "delta_share_positive", "delta_p_positive")


def _parse_time(value: str | None) -> datetime:
    if not value:
        return datetime.now(timezone.utc)
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def save_probe_report(report: Mapping[str, Any], *, url: str | None = None, db_engine: Engine | None = None) -> int:
    """Store every row of a probe report (the ``--out`` JSON); return how many rows were written.

    Raises ValueError when the report lacks ``run_id``, ``task`` or ``rows``.
    """
    missing = [k for k in ("run_id", "task", "rows") if k not in report]
    if missing:
        raise ValueError(f"not a probe report: missing {', '.join(missing)}")
    created = _parse_time(report.get("created_at"))
    values = []
    for row in report["rows"]:
        values.append(
            {
                "run_id": str(report["run_id"]),
                "created_at": created,
                "task": str(report["task"]),
                "member_id": str(row["member_id"]),
                "condition": str(row["condition"]),
                "delimit": bool(row.get("delimit", True)),
                **{k: row.get(k) for k in _NUMBERS},
                "row_json": json.dumps(dict(row), sort_keys=True),
            }
        )
    own = db_engine is None
    db_engine = db_engine or make_db_engine(url)
    try:
        ensure_schema(db_engine)
        if values:
            with db_engine.begin() as conn:
                conn.execute(probe_results.insert(), values)
    finally:
        if own:
            db_engine.dispose()
    return len(values)


def latest_probe_results(
    url: str | None = None, *, task: str | None = None, db_engine: Engine | None = None
) -> list[dict[str, Any]]:
    """The rows of each member's most recent probe run (optionally of one task), oldest member first;
    the built-in probes and the planted-instruction probe each have their own latest run.

    Each dict is the stored row (``member_id``, ``condition``, ``delimit``, ``n``, ``n_ok``,
    ``n_errors``, ``errors``, ``mae``, ``share_positive``, ``mean_p_positive``, ``delta_*``...) plus
    ``run_id``, ``task`` and ``created_at`` (ISO 8601, UTC). Empty when no probe ever ran.
    """
    own = db_engine is None
    db_engine = db_engine or make_db_engine(url)
    try:
        if not inspect(db_engine).has_table(probe_results.name):
            return []
        kind = case((probe_results.c.condition == PLANTED, 1), else_=0)
        runs = select(probe_results.c.member_id, probe_results.c.created_at, kind.label("kind"))
        if task is not None:
            runs = runs.where(probe_results.c.task == task)
        runs = runs.subquery()  # grouping by a column, not by the CASE (PostgreSQL binds each copy apart)
        latest = (select(runs.c.member_id, runs.c.kind, func.max(runs.c.created_at).label("latest"))
                  .group_by(runs.c.member_id, runs.c.kind).subquery())
        query = (
            select(probe_results.c.run_id, probe_results.c.task, probe_results.c.created_at, probe_results.c.row_json)
            .join(latest, and_(probe_results.c.member_id == latest.c.member_id, kind == latest.c.kind,
                               probe_results.c.created_at == latest.c.latest))
            .order_by(probe_results.c.id)
        )
        if task is not None:
            query = query.where(probe_results.c.task == task)
        with db_engine.connect() as conn:
            rows = conn.execute(query).all()
    finally:
        if own:
            db_engine.dispose()
    out = []
    for run_id, task_name, created_at, row_json in rows:
        stamp = created_at if created_at.tzinfo else created_at.replace(tzinfo=timezone.utc)
        out.append({**json.loads(row_json), "run_id": run_id, "task": task_name, "created_at": stamp.isoformat()})
    return out
