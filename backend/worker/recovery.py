"""Re-run jobs whose worker died (SIGKILL, OOM, container stop) without waiting for rq's timeout.

rq already handles abandoned jobs: when a started job's registry entry expires (its worker stopped
heartbeating, ≥ 60 s after the last heartbeat), ``StartedJobRegistry.cleanup`` retries it if it has
retries left (our jobs carry ``Retry``) or moves it to the failed registry. That cleanup runs only
during a worker's maintenance (every 10 minutes by default), so on its own a killed job can wait long.

:class:`AuditWorker` shortens both delays without replacing rq's logic: during maintenance (at
start-up, then every ``MAINTENANCE_INTERVAL`` s) it marks as expired the started jobs whose worker is
provably dead (same host, process gone) or whose last heartbeat is older than ``stale_after`` s, and
lets rq's own cleanup retry them. The job itself is idempotent (see :mod:`backend.worker.jobs`), so
the re-run stores no duplicate.

Run it with ``label-audit worker`` or ``rq worker --with-scheduler -w backend.worker.recovery.AuditWorker``
(the scheduler moves the backoff retries back into the queue).
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timezone

from rq import Queue, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.utils import as_text

log = logging.getLogger(__name__)

JOB_MONITORING_INTERVAL = 5  # heartbeat period of an AuditWorker's running job, seconds
MAINTENANCE_INTERVAL = 15
DEFAULT_STALE_AFTER = 90.0  # safe for plain rq workers too (their heartbeat period is 30 s)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _worker_dead_here(queue: Queue, worker_name: str | None) -> bool:
    """True when the job's worker ran on this host and its process no longer exists."""
    if not worker_name:
        return False
    data = queue.connection.hgetall(f"{Worker.redis_worker_namespace_prefix}{worker_name}")
    if not data:
        return False  # expired worker key: the heartbeat rule decides
    fields = {as_text(k): as_text(v) for k, v in data.items()}
    if fields.get("hostname") != socket.gethostname() or not fields.get("pid", "").isdigit():
        return False
    if "death" in fields:
        return True
    return not _pid_alive(int(fields["pid"]))


def requeue_abandoned(queue: Queue, *, stale_after: float = DEFAULT_STALE_AFTER) -> list[str]:
    """Hand the started jobs of ``queue`` whose worker is gone to rq's abandoned-job cleanup.

    Returns the ids of the jobs that were retried (or failed when out of retries).
    """
    if stale_after <= 0:
        raise ValueError("stale_after must be > 0")
    registry = queue.started_job_registry
    conn = queue.connection
    now = datetime.now(timezone.utc)
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
        beat = job.last_heartbeat
        if beat is not None and beat.tzinfo is None:
            beat = beat.replace(tzinfo=timezone.utc)
        stale = beat is None or (now - beat).total_seconds() > stale_after
        if stale or _worker_dead_here(queue, job.worker_name):
            conn.zadd(registry.key, {entry: 0})  # expired now: rq's cleanup takes it from here
            expired.append(job_id)
    if expired:
        log.warning("re-running %d abandoned job(s) on %s: %s", len(expired), queue.name, ", ".join(expired))
        registry.cleanup()
    return expired


class AuditWorker(Worker):
    """An rq ``Worker`` that heartbeats every 5 s, runs maintenance every 15 s and reaps dead jobs."""

    def __init__(self, *args, **kwargs):
        kwargs["job_monitoring_interval"] = min(kwargs.get("job_monitoring_interval") or 30, JOB_MONITORING_INTERVAL)
        kwargs["maintenance_interval"] = min(kwargs.get("maintenance_interval") or 600, MAINTENANCE_INTERVAL)
        super().__init__(*args, **kwargs)
        self.stale_after = float(os.environ.get("LABEL_AUDIT_STALE_AFTER", DEFAULT_STALE_AFTER))

    def run_maintenance_tasks(self):
        for queue in self.queues:
            try:
                requeue_abandoned(queue, stale_after=self.stale_after)
            except Exception:  # maintenance must never stop the worker
                log.exception("abandoned-job check failed on %s", queue.name)
        super().run_maintenance_tasks()

    def work(self, *args, **kwargs):
        kwargs["with_scheduler"] = True  # backoff retries are scheduled jobs
        return super().work(*args, **kwargs)
