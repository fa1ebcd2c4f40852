"""What ``GET /health`` reports: the backend is UP, and whether the ledger, Redis and Label Studio work.

Label Studio only looks at the HTTP status of /health (200 = connected), so the answer stays 200
while the backend can still serve scored tasks; ``status`` says ``DEGRADED`` and ``checks`` says which
dependency is read-only or unreachable, so an operator (or a probe) sees it before the work stalls.
Each check is bounded by :data:`CHECK_TIMEOUT` seconds.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
from redis import Redis

from backend.sqlstore.connection import db_status
from backend.ledger import Ledger

log = logging.getLogger(__name__)

CHECK_TIMEOUT = 1.0


def health_report(ledger: Ledger, redis: Redis, *, label_studio_url: str | None) -> dict[str, Any]:
    """``{"status": "UP" | "DEGRADED", "checks": {"ledger": ..., "redis": ..., "label_studio": ...}}``."""
    checks = {"ledger": db_status(ledger.db_engine), "redis": _redis(redis),
              "label_studio": _label_studio(label_studio_url)}
    degraded = any(value not in ("ok", "not configured") for value in checks.values())
    return {"status": "DEGRADED" if degraded else "UP", "checks": checks}


def _redis(redis: Redis) -> str:
    try:
        redis.ping()
    except Exception as exc:
        return f"unavailable ({type(exc).__name__})"
    return "ok"


def _label_studio(url: str | None) -> str:
    if not url:
        return "not configured"
    try:
        resp = httpx.get(f"{url.rstrip('/')}/health", timeout=CHECK_TIMEOUT)
    except httpx.HTTPError as exc:
        return f"unavailable ({type(exc).__name__})"
    return "ok" if resp.status_code == 200 else f"unavailable (HTTP {resp.status_code})"
