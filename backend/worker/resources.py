"""What a worker process opens once and reuses across jobs: the ledger and the call cache, by URL.

Why: a worker that does not fork per job (:class:`backend.worker.recovery.AuditWorker`) would otherwise
open a new SQLAlchemy engine, and with it a connection pool and a schema check, for every job, and keep
them all open (on PostgreSQL, connections pile up until the server refuses new ones). Forked work
horses used to pay that start-up once per job instead. The objects are per process (a fork gets its own
on first use: the pid is part of the key) and are thread-safe as SQLAlchemy engines are.
"""

from __future__ import annotations

import os
import threading

from backend.cache import CallCache
from backend.ledger import Ledger

_LOCK = threading.Lock()
_LEDGERS: dict[tuple[int, str | None], Ledger] = {}
_CACHES: dict[tuple[int, str | None], CallCache] = {}


def ledger(url: str | None) -> Ledger:
    """This process's ledger for ``url`` (None: the default SQLite store), opened on first use."""
    key = (os.getpid(), url)
    with _LOCK:
        if key not in _LEDGERS:
            _LEDGERS[key] = Ledger(url)
        return _LEDGERS[key]


def call_cache(url: str | None) -> CallCache:
    """This process's call cache for ``url``, opened on first use."""
    key = (os.getpid(), url)
    with _LOCK:
        if key not in _CACHES:
            _CACHES[key] = CallCache(url)
        return _CACHES[key]
