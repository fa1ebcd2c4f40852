"""Predictions reach Label Studio through an outbox: the ledger's not-yet-imported rows, flushed by one job.

Why not one import per scoring job: Label Studio 1.23.2's ``POST /api/projects/{id}/import/predictions``
recounts every task of the project on each call (``ImportPredictionsAPI._create_legacy`` runs
``update_tasks_counters`` over all of the project's tasks, whatever the payload size), so one call per
16-task job made an audit's Label Studio time grow with the square of the project size.

The outbox is the ledger itself: a result whose ``imported_at`` is empty and that has a prediction is
waiting. A scoring job records its results first, then calls :func:`request_flush`, which schedules at
most one importer job (:func:`flush_predictions`) per (queue, project, model version) at a time. The
importer takes a lock, reads the outbox in pages, imports each page in one call, marks it imported and
updates the score column and suspects tab once; results recorded while it worked get a follow-up
importer. The next importer may start only after a pause of
``SPACING`` times the last flush's duration (at least ``LABEL_AUDIT_IMPORT_WAIT``, default 2 s): a
flush that costs more because the project is larger is followed by a longer pause, so the number of
calls per audit stays about the same as the project grows, and Label Studio spends at most about
1/(1 + ``SPACING``) of the time importing.

Importer jobs go to the front of the queue (a 100k-task audit enqueues 6,250 scoring jobs at once: at
the back, the first flush would wait for all of them).

Crash safety: nothing is removed from the outbox before Label Studio accepted it. A worker killed
between recording and :func:`request_flush` leaves rows that the retried job (rq ``Retry``, abandoned-job
recovery), the next importer of the project or ``label-audit audit`` flushes. The page being sent is
noted in Redis first; when its call ended without an answer (a timeout, a killed importer), Label Studio
may have stored it anyway, so the next flush asks Label Studio which of those tasks already hold a
prediction of this version and marks them instead of sending them twice (measured: a 60 s client timeout
on a 10k-task project's import, which Label Studio completed, duplicated 3,552 predictions on the
retry). Redis keeps only the schedule (the pending marker, the lock, the next flush time, the page in
flight), all with TTLs.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable

from redis import Redis
from rq import Queue, Retry, get_current_job

from backend.common import defaults
from backend.labelstudio.predictions import already_imported, import_predictions, ls_client, prediction_requests
from backend.ledger import Ledger
from backend.task.spec import TaskSpec
from backend.worker import resources
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.job_names import FLUSH_FUNC
from backend.worker.safety import scoring_queue
from backend.worker.start import worker_settings

log = logging.getLogger(__name__)

SPACING = 4.0  # pause after a flush = SPACING x its duration: Label Studio imports <= ~20 % of the time
PAGE = 20_000  # predictions per import call (~6 MB of JSON; Label Studio accepts 250 MB)
CALL_TIMEOUT = 1800  # seconds one import call may take (LS recounts the project: ~1 min at 10k when loaded)
LOCK_TTL = 2 * CALL_TIMEOUT  # seconds a dead importer's lock survives it (longer than any call)
PENDING_MARGIN = 600  # seconds past its due time a waiting importer blocks the scheduling of another
LOCK_WAIT = 60  # seconds an importer waits for another one's flush before rq retries it
RETRY_INTERVALS = (5, 20, 60)


class ImporterBusy(RuntimeError):
    """Another importer held the project's lock too long; rq retries this one with backoff."""


@dataclass(frozen=True)
class OutboxKeys:
    """Redis keys of one (queue, project, model version) outbox: all transient."""

    pending: str
    lock: str
    next_at: str
    in_flight: str

    @classmethod
    def of(cls, queue_name: str, project: str, model_version: str) -> "OutboxKeys":
        base = f"la-import:{queue_name}:{project}:{model_version}"
        return cls(pending=f"{base}:pending", lock=f"{base}:lock", next_at=f"{base}:next",
                   in_flight=f"{base}:in-flight")


def request_flush(queue: Queue, *, project: str, model_version: str, label_config: str,
                  min_wait: float = defaults.IMPORT_WAIT) -> str | None:
    """Schedule this project's importer unless one is already waiting; returns the new job id or None.

    Call it after the results are committed to the ledger: a waiting importer reads the outbox only
    after it ran, so it sees them.
    """
    keys = OutboxKeys.of(queue.name, str(project), model_version)
    conn: Redis = queue.connection
    delay = max(min_wait, float(conn.get(keys.next_at) or 0) - time.time())
    if not conn.set(keys.pending, "1", nx=True, ex=int(delay) + PENDING_MARGIN):
        return None
    job_id = f"la-import-{project}-{uuid.uuid4().hex[:16]}"
    try:
        queue.enqueue_in(
            timedelta(seconds=delay), FLUSH_FUNC,
            kwargs={"project": str(project), "model_version": model_version, "label_config": label_config},
            job_id=job_id, at_front=True,
            retry=Retry(max=len(RETRY_INTERVALS), interval=list(RETRY_INTERVALS), enqueue_at_front=True),
            job_timeout=LOCK_TTL, result_ttl=600, failure_ttl=7 * 24 * 3600,
            description=f"label-audit import predictions of project {project}",
        )
    except Exception:
        conn.delete(keys.pending)  # let the next job schedule one
        raise
    return job_id


def flush_predictions(*, project: str, model_version: str, label_config: str) -> dict[str, int]:
    """The importer job: import every waiting prediction of the project, then set the next pause.

    It works with the worker's settings (:mod:`backend.worker.start`), never with values from the job.
    """
    job = get_current_job()
    if job is None:
        raise RuntimeError("flush_predictions runs as an rq job (use flush_now elsewhere)")
    settings = worker_settings()
    config = EnsembleConfig(settings)
    spec = config.spec(label_config)
    client = ls_client(settings, timeout=CALL_TIMEOUT)
    if client is None:
        log.warning("LABEL_STUDIO_URL/LABEL_STUDIO_API_KEY not set: predictions stay in the ledger")
        job.connection.delete(OutboxKeys.of(job.origin, project, model_version).pending)
        return {"imported": 0, "calls": 0}
    ledger = resources.ledger(settings.store_url)
    queue = scoring_queue(job.origin, job.connection)
    sent, calls = flush_now(job.connection, job.origin, client, ledger, project=project,
                            model_version=model_version, spec=spec, ls_version=config.ls_version(spec),
                            follow_up=lambda: request_flush(queue, project=project, model_version=model_version,
                                                            label_config=label_config, min_wait=settings.import_wait))
    return {"imported": sent, "calls": calls}


def flush_now(conn: Redis, queue_name: str, client: Any, ledger: Ledger, *, project: str, model_version: str,
              spec: TaskSpec, page: int = PAGE, follow_up: Callable[[], Any] | None = None,
              ls_version: str | None = None) -> tuple[int, int]:
    """Under the project's import lock, import the whole outbox; returns (predictions sent, calls).

    With ``follow_up`` (the importer job's own scheduling), this flush is the project's waiting importer:
    it keeps the pending marker while it works (so jobs ending meanwhile schedule no second importer,
    which would only wait for the lock), then clears it and calls ``follow_up()`` if results arrived
    during the flush. Without it (``label-audit audit``'s last flush), the schedule is left alone.
    """
    keys = OutboxKeys.of(queue_name, str(project), model_version)
    lock = conn.lock(keys.lock, timeout=LOCK_TTL, blocking_timeout=LOCK_WAIT)
    if not lock.acquire():
        raise ImporterBusy(f"another importer of project {project} holds its lock")
    try:
        if follow_up is not None:
            conn.set(keys.pending, "1", ex=LOCK_TTL)  # outlives the longest flush
        started = time.monotonic()
        settle_in_flight(conn, keys, client, ledger, project=project, model_version=model_version)
        sent, calls = drain(client, ledger, project=project, model_version=model_version, spec=spec, page=page,
                            ls_version=ls_version, note=lambda ids: conn.set(keys.in_flight, json.dumps(ids), ex=LOCK_TTL))
        conn.delete(keys.in_flight)
        spent = time.monotonic() - started
        conn.set(keys.next_at, time.time() + SPACING * spent, ex=int(SPACING * spent) + 60)
        if follow_up is not None:
            conn.delete(keys.pending)  # a result recorded from now on schedules the next importer itself
            if ledger.unimported(project, model_version, limit=1):  # recorded during the flush
                follow_up()
        if calls:
            log.info("project %s: imported %d predictions in %d call(s), %.1f s", project, sent, calls, spent)
        return sent, calls
    except Exception:
        if follow_up is not None:
            conn.delete(keys.pending)  # rq retries this job; meanwhile new results may schedule another
        raise
    finally:
        try:
            lock.release()
        except Exception:  # expired while we worked (LOCK_TTL): the next importer re-checks the outbox
            log.warning("the import lock of project %s expired during a flush", project)


def settle_in_flight(conn: Redis, keys: OutboxKeys, client: Any, ledger: Ledger, *, project: str,
                     model_version: str) -> int:
    """Mark imported the tasks of a page whose call got no answer but that Label Studio stored anyway."""
    raw = conn.get(keys.in_flight)
    if raw is None:
        return 0
    stored = already_imported(client, project, [str(t) for t in json.loads(raw)], model_version)
    ledger.mark_imported(project, model_version, sorted(stored))
    conn.delete(keys.in_flight)
    log.warning("project %s: the last import call got no answer; %d of its predictions were stored anyway",
                project, len(stored))
    return len(stored)


def drain(client: Any, ledger: Ledger, *, project: str, model_version: str, spec: TaskSpec,
          page: int = PAGE, note: Callable[[list[str]], Any] | None = None,
          ls_version: str | None = None) -> tuple[int, int]:
    """Import the outbox page by page (one call each), marking each page once Label Studio accepted it.

    ``model_version`` is the ledger's key; the predictions carry ``ls_version`` (the readable name).

    ``note(task_ids)`` is told each page before it is sent (the importer keeps it as the page in flight).
    """
    sent = calls = 0
    while True:
        results = ledger.unimported(project, model_version, limit=page)
        if not results:
            return sent, calls
        requests = prediction_requests(results, spec, model_version, ls_version=ls_version)
        if requests:
            if note is not None:
                note([str(r["task"]) for r in requests])
            sent += import_predictions(client, project, requests, chunk=page)
            calls += 1
        ledger.mark_imported(project, model_version, [str(r.id) for r in results])
        if len(results) < page:
            return sent, calls
