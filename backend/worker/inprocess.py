"""The worker process model: jobs run in the worker itself, and the scheduler dies with its worker.

Why not rq's default: rq's ``Worker`` forks a work horse per job, and the horse imports the job's
modules (``openai``, the SDKs, the engine) afresh each time: about 2.3 s and 200 MB per 16-task job in
a profile, most of a job's cost. :class:`InProcessWorker` is rq's ``SimpleWorker`` (no fork) with two
things it lacks: the heartbeats of a running job (rq's forking worker sends them from the parent while
the horse works; ``SimpleWorker`` sends none, so a job running longer than a minute on a worker that
then died would wait for its whole timeout before another worker takes it over), and the job's modules
imported once, at start-up (:func:`preload`).

Trade-off: a job that crashes the interpreter (a native library's SIGILL or segfault) now takes the
worker with it; the job is abandoned, and rq's abandoned-job cleanup (sped up by
:mod:`backend.worker.recovery`) hands it to another worker. ``label-audit worker --fork`` keeps rq's
forking model for such members.

rq starts its scheduler in a forked child that does not notice its parent's death: a SIGKILLed
``label-audit worker`` left it running, holding the scheduler lock and enqueueing jobs for a worker that
no longer existed. :class:`ParentBoundScheduler` stops (releasing its locks) within a second of the
worker that started it going away.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time

from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.job import Job
from rq.queue import Queue
from rq.scheduler import RQScheduler
from rq.worker import BaseWorker, SimpleWorker, Worker, WorkerStatus

log = logging.getLogger(__name__)

PARENT_CHECK = 0.5  # seconds between the scheduler's checks that its worker is alive
#: what a job imports: loaded once per worker process instead of once per job
PRELOAD = ("backend.worker.jobs", "backend.worker.importer", "backend.scoring.engine", "backend.providers.openai_compat",
           "openai", "label_studio_sdk", "sqlalchemy.dialects.postgresql.psycopg")


def preload(modules: tuple[str, ...] = PRELOAD) -> list[str]:
    """Import the job's modules now; returns the ones that are not installed (their members fail later)."""
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


class ParentBoundScheduler(RQScheduler):
    """rq's scheduler process, which stops when the worker process that started it is gone."""

    def start(self):
        self._parent_pid = os.getpid()
        return super().start()

    def work(self):
        parent = getattr(self, "_parent_pid", None) or os.getppid()

        def watch() -> None:
            while not self._stop_requested:
                if os.getppid() != parent:  # re-parented: the worker died (SIGKILL, OOM)
                    self.log.warning("scheduler %s: worker %d is gone, stopping", self.name, parent)
                    self._stop_requested = True
                    return
                time.sleep(PARENT_CHECK)

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()
        return super().work()


class ParentBoundSchedulerMixin:
    """Start :class:`ParentBoundScheduler` where rq starts its own (``BaseWorker._start_scheduler``)."""

    def _start_scheduler(self, burst: bool = False, logging_level: str | None = None,
                        date_format: str = DEFAULT_LOGGING_DATE_FORMAT, log_format: str = DEFAULT_LOGGING_FORMAT):
        self.scheduler = ParentBoundScheduler(
            self.queues, connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format, log_format=log_format, serializer=self.serializer,
        )
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return
        if not burst:
            self.scheduler.start()
            return
        try:
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()
        finally:
            self.scheduler.release_locks()
            self.scheduler.register_death()


class InProcessWorker(ParentBoundSchedulerMixin, SimpleWorker):
    """rq's non-forking worker, heartbeating its running job like rq's forking worker does."""

    def execute_job(self, job: Job, queue: Queue):
        execution = self.prepare_execution(job)
        done = threading.Event()
        beat = threading.Thread(target=self._beat, args=(job, execution, done), name="job-heartbeat", daemon=True)
        beat.start()
        try:
            self.perform_job(job, queue, execution)
        finally:
            done.set()
            beat.join(timeout=10)
        self.set_state(WorkerStatus.IDLE)

    def _beat(self, job: Job, execution, done: threading.Event) -> None:
        while not done.wait(self.job_monitoring_interval):
            try:
                self.maintain_heartbeats(job, execution)
            except Exception as exc:  # Redis away for a moment: the next beat tries again
                log.warning("heartbeat of job %s failed: %s", job.id, type(exc).__name__)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """The forking worker's TTL (a monitoring interval + 60 s), not the whole job timeout."""
        return BaseWorker.get_heartbeat_ttl(self, job, working_time)


class ForkingWorker(ParentBoundSchedulerMixin, Worker):
    """rq's forking worker (one work horse per job) with the parent-bound scheduler."""
