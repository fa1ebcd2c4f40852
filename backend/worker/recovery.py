"""Re-run jobs whose worker died (SIGKILL, OOM, container stop) without waiting for rq's timeouts.

rq already handles abandoned jobs: when a started job's registry entry expires (its worker stopped
heartbeating; ≥ 60 s after the last heartbeat), ``StartedJobRegistry.cleanup`` retries it if it has
retries left (our jobs carry ``Retry``) or moves it to the failed registry. That cleanup runs only
during a worker's maintenance (every 10 minutes by default), and the retry is a scheduled job that
needs a scheduler, whose lock a killed worker keeps for another ~60 s.

:class:`AuditWorker` shortens these delays without replacing rq's logic. During maintenance (at
start-up, then every ``MAINTENANCE_INTERVAL`` s) it marks as expired the started jobs whose worker is
provably dead — it ran on this host and its process is gone — and lets rq's own cleanup retry them;
it also frees the scheduler lock such a worker held. Jobs of workers on other hosts are left to rq's
heartbeat expiry. The job itself is idempotent (see :mod:`backend.worker.jobs`), so the re-run
stores no duplicate.

Run it with ``label-audit worker`` or
``rq worker --with-scheduler -w backend.worker.recovery.AuditWorker QUEUE``. It runs jobs in its own
process (no fork per job) and its scheduler dies with it (see :mod:`backend.worker.inprocess`);
:class:`ForkingAuditWorker` (``label-audit worker --fork``) forks a work horse per job as rq does.
"""

from __future__ import annotations

import logging
import os
import socket

from rq import Queue, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler
from rq.utils import as_text

from backend.ledger.jobs import JobLog
from backend.sqlstore.connection import make_db_engine
from backend.worker.inprocess import ForkingWorker, InProcessWorker, preload
from backend.worker.prompt_stop import PromptStopMixin
from backend.worker.redis_outage import OutlastRedisMixin
from backend.worker.safety import SERIALIZER, ScoringJob, scoring_queue
from backend.worker.start import worker_settings

log = logging.getLogger(__name__)

JOB_MONITORING_INTERVAL = 5  # heartbeat period of an AuditWorker's running job, seconds
MAINTENANCE_INTERVAL = 15


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _process_dead_here(conn, hash_key: str) -> bool:
    """True when the rq worker/scheduler hash at ``hash_key`` says it ran on this host and is gone."""
    data = conn.hgetall(hash_key)
    if not data:
        return False  # expired: rq's own timeouts decide
    fields = {as_text(k): as_text(v) for k, v in data.items()}
    if fields.get("hostname") != socket.gethostname() or not fields.get("pid", "").isdigit():
        return False
    if "death" in fields:
        return True
    return not _pid_alive(int(fields["pid"]))


def _worker_dead_here(queue: Queue, worker_name: str | None) -> bool:
    """True when the job's worker ran on this host and its process no longer exists."""
    if not worker_name:
        return False
    return _process_dead_here(queue.connection, f"{Worker.redis_worker_namespace_prefix}{worker_name}")


def requeue_abandoned(queue: Queue) -> list[str]:
    """Hand the started jobs of ``queue`` whose worker died on this host to rq's abandoned-job cleanup.

    Returns the ids of the jobs that were retried (or failed when out of retries).
    """
    registry = queue.started_job_registry
    conn = queue.connection
    expired = []
    for raw in conn.zrange(registry.key, 0, -1):
        entry = as_text(raw)
        job_id = registry.parse_job_id(entry)
        try:
            job = Job.fetch(job_id, connection=conn)
        except NoSuchJobError:
            continue
        if job.get_status(refresh=False) != JobStatus.STARTED:
            continue
        if _worker_dead_here(queue, job.worker_name):
            conn.zadd(registry.key, {entry: 0})  # expired now: rq's cleanup takes it from here
            expired.append(job_id)
    if expired:
        log.warning("re-running %d abandoned job(s) on %s: %s", len(expired), queue.name, ", ".join(expired))
        registry.cleanup()
    return expired


def release_dead_scheduler_lock(queue: Queue) -> bool:
    """Delete the queue's scheduler lock when the scheduler process holding it died on this host."""
    key = RQScheduler.get_locking_key(queue.name)
    holder = queue.connection.get(key)
    if holder is None or not _process_dead_here(queue.connection, SCHEDULER_KEY_TEMPLATE % as_text(holder)):
        return False
    queue.connection.delete(key)
    log.warning("released the scheduler lock of dead worker %s on %s", as_text(holder), queue.name)
    return True


def record_failure(job_key: str, exc_string: str) -> None:
    """Mark ``job_key`` failed in the worker's ledger, with the exception's last line as the reason."""
    lines = [line for line in (exc_string or "").strip().splitlines() if line.strip()]
    reason = f"failed by the queue: {lines[-1] if lines else 'no reason given'}"
    JobLog(make_db_engine(worker_settings().store_url)).failed_by_queue(job_key, reason)


class RecoveryMixin:
    """Maintenance every 15 s that re-runs the jobs of workers that died here; JSON scoring jobs only."""

    def __init__(self, queues, *args, **kwargs):
        # Only JSON jobs, only our job function (see backend.worker.safety), whatever the rq CLI passed.
        kwargs["serializer"] = SERIALIZER
        kwargs["job_class"] = ScoringJob
        connection = kwargs.get("connection")
        queues = [scoring_queue(q.name if isinstance(q, Queue) else str(q), connection or q.connection)
                  for q in (queues if isinstance(queues, (list, tuple)) else [queues])]
        kwargs["job_monitoring_interval"] = min(kwargs.get("job_monitoring_interval") or 30, JOB_MONITORING_INTERVAL)
        kwargs["maintenance_interval"] = min(kwargs.get("maintenance_interval") or 600, MAINTENANCE_INTERVAL)
        super().__init__(queues, *args, **kwargs)
        try:  # the worker's settings, resolved once at its start (a forked work horse inherits them)
            worker_settings()
        except ValueError as exc:  # each job fails with the reason, as it did before the worker resolved them
            log.error("the worker's settings are invalid: %s", exc)

    @property
    def dequeue_timeout(self) -> int:
        """Wake up from an idle wait every maintenance interval, so maintenance actually runs."""
        return min(super().dequeue_timeout, MAINTENANCE_INTERVAL)

    def run_maintenance_tasks(self):
        for queue in self.queues:
            try:
                requeue_abandoned(queue)
                release_dead_scheduler_lock(queue)
            except Exception:  # maintenance must never stop the worker
                log.exception("abandoned-job check failed on %s", queue.name)
        super().run_maintenance_tasks()

    def handle_job_failure(self, job, queue, started_job_registry=None, exc_string="", execution=None):
        """rq's failure handling, then the ledger: a job rq failed for good is ``failed`` there too.

        Without this the ledger kept ``started`` (or ``retrying``) forever for a job whose retries were
        used up, or whose work horse crashed, while rq itself had failed it. A refused job (queued for
        another ensemble) is not retried: no retry changes this worker's model version.
        """
        if "RefusedJob" in (exc_string or ""):
            job.retries_left = 0
        super().handle_job_failure(job, queue, started_job_registry=started_job_registry, exc_string=exc_string,
                                   execution=execution)
        try:
            if job.get_status(refresh=True) == JobStatus.FAILED:
                record_failure(job.id, exc_string)
        except Exception:  # bookkeeping must never stop the worker
            log.exception("could not record the failure of job %s in the ledger", job.id)

    def work(self, *args, **kwargs):
        kwargs["with_scheduler"] = True  # backoff retries are scheduled jobs
        for queue in self.queues:  # so this worker's scheduler can start now, not a minute later
            try:
                release_dead_scheduler_lock(queue)
            except Exception:
                log.exception("scheduler lock check failed on %s", queue.name)
        missing = preload()
        if missing:
            log.info("not installed (members needing them will fail): %s", ", ".join(missing))
        return super().work(*args, **kwargs)


class AuditWorker(RecoveryMixin, PromptStopMixin, OutlastRedisMixin, InProcessWorker):
    """The label-audit worker: jobs run in this process, modules imported once, recovery as above,
    a Redis outage waited out wherever it strikes (:mod:`backend.worker.redis_outage`), and a stop
    obeyed in about a second (:mod:`backend.worker.prompt_stop`)."""


class ForkingAuditWorker(RecoveryMixin, PromptStopMixin, OutlastRedisMixin, ForkingWorker):
    """The same, with one forked work horse per job (isolates a member whose native code may crash)."""
