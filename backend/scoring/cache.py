"""The LLM call cache: one row per successful (provider, model, template, prompt, parameters) call.

Content-addressed, so re-running a command makes no LLM call for anything already answered, and a run
that was killed resumes where it stopped: the engine writes each answer as soon as it arrives. Errors
are never stored, so the next run retries them. Lives in the same SQL store as the audit ledger
(:func:`backend.sqlstore.connection.make_db_engine`: SQLite by default, PostgreSQL by URL).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

from sqlalchemy import Column, DateTime, Float, String, Table, Text, func, select
from sqlalchemy.dialects import postgresql, sqlite

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.tables import ensure_schema, metadata
from backend.providers.base import ClassDistribution

llm_call_cache = Table(
    "llm_call_cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("provider", String(64), nullable=False),
    Column("model", String(STORE_COLUMN_CHARS), nullable=False),
    Column("template_id", String(128), nullable=False),
    Column("template_version", String(16), nullable=False),
    Column("distribution", Text, nullable=False),
    Column("latency_s", Float, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


def call_key(
    *,
    provider: str,
    model: str,
    template_id: str,
    template_version: int | str,
    prompt: str,
    labels: Sequence[str],
    params: Mapping[str, Any],
) -> str:
    """sha256 over every ingredient that can change a call's answer (canonical JSON, sorted keys).

    The label set is included because the provider normalises over it.
    """
    payload = {
        "provider": provider,
        "model": model,
        "template_id": template_id,
        "template_version": str(template_version),
        "prompt": prompt,
        "labels": list(labels),
        "params": params,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CallCache:
    """Persistent cache of successful calls.

    Parameters
    ----------
    url : str, optional
        SQLAlchemy URL (``sqlite:///path``, ``postgresql://...``); None uses :func:`backend.sqlstore.connection.default_url`.

    Thread-safe: the engine calls :meth:`put` from worker threads.
    """

    def __init__(self, url: str | None = None):
        self.db_engine = make_db_engine(url)
        ensure_schema(self.db_engine)
        self.url = self.db_engine.url.render_as_string(hide_password=True)

    def get_many(self, keys: Iterable[str]) -> dict[str, tuple[ClassDistribution, float | None]]:
        """Cached answers (and their original latency) for those of ``keys`` that are present."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, tuple[ClassDistribution, float | None]] = {}
        if not wanted:
            return found
        with self.db_engine.connect() as conn:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                rows = conn.execute(
                    select(llm_call_cache.c.key, llm_call_cache.c.distribution, llm_call_cache.c.latency_s).where(
                        llm_call_cache.c.key.in_(chunk)
                    )
                )
                for key, blob, latency in rows:
                    found[key] = (ClassDistribution.from_dict(json.loads(blob)), latency)
        return found

    def get(self, key: str) -> ClassDistribution | None:
        """The cached answer for ``key``, or None."""
        hit = self.get_many([key]).get(key)
        return hit[0] if hit else None

    def put(
        self,
        key: str,
        dist: ClassDistribution,
        *,
        provider: str,
        model: str,
        template_id: str,
        template_version: int | str,
        latency_s: float | None = None,
    ) -> None:
        """Store one successful answer; a key that is already there is left as it is."""
        row = {
            "key": key,
            "provider": provider,
            "model": model,
            "template_id": template_id,
            "template_version": str(template_version),
            "distribution": json.dumps(dist.to_dict(), sort_keys=True, default=str),
            "latency_s": latency_s,
            "created_at": datetime.now(timezone.utc),
        }
        dialect = self.db_engine.dialect.name
        if dialect == "postgresql":
            stmt = postgresql.insert(llm_call_cache).values(**row).on_conflict_do_nothing(index_elements=["key"])
        elif dialect == "sqlite":
            stmt = sqlite.insert(llm_call_cache).values(**row).on_conflict_do_nothing(index_elements=["key"])
        else:  # pragma: no cover - other databases: plain insert, tolerate a concurrent duplicate
            stmt = llm_call_cache.insert().values(**row)
        with self.db_engine.begin() as conn:
            conn.execute(stmt)

    def count(self) -> int:
        """Number of cached calls."""
        with self.db_engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(llm_call_cache)).scalar_one())

    def close(self) -> None:
        self.db_engine.dispose()
