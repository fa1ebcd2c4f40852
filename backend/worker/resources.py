"""What a worker process opens once and reuses across jobs: the ledger, the call cache, the members.

Why: a worker that does not fork per job (:class:`backend.worker.recovery.AuditWorker`) would otherwise
open a new SQLAlchemy engine, and with it a connection pool and a schema check, for every job, and keep
them all open (on PostgreSQL, connections pile up until the server refuses new ones). Forked work
horses used to pay that start-up once per job instead. The objects are per process (a fork gets its own
on first use: the pid is part of the key) and are thread-safe as SQLAlchemy engines are.

The members are kept by model version (which changes whenever the members or the task spec do): an
OpenAI-protocol provider builds an ``httpx`` client and loads the CA bundle (~55 ms of CPU, a tenth of a
16-task job against a fast server), and a local model would be loaded again for every job.
"""

from __future__ import annotations

import os
import threading

from typing import Callable

from backend.scoring.cache import CallCache
from backend.ledger import Ledger
from backend.scoring.members import Member

_LOCK = threading.Lock()
_LEDGERS: dict[tuple[int, str | None], Ledger] = {}
_CACHES: dict[tuple[int, str | None], CallCache] = {}
_MEMBERS: dict[tuple[int, str], list[Member]] = {}
KEEP_VERSIONS = 4  # model versions whose members a worker keeps (one per project spec in use)


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


def members(model_version: str, build: Callable[[], list[Member]]) -> list[Member]:
    """This process's members for ``model_version``, built with ``build()`` on first use."""
    key = (os.getpid(), model_version)
    with _LOCK:
        if key not in _MEMBERS:
            while len(_MEMBERS) >= KEEP_VERSIONS:
                _MEMBERS.pop(next(iter(_MEMBERS)))
            _MEMBERS[key] = build()
        return _MEMBERS[key]
