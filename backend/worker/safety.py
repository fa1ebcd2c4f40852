"""What a worker accepts from the queue: one job function, JSON arguments of a known shape.

Anyone who can write to Redis can put a job on the queue. rq's default serializer is pickle (loading a
job can run code) and a job names any importable function. Workers therefore use rq's JSON serializer
(a pickled job fails to load and is never unpickled) and :class:`ScoringJob`, whose ``func`` is
:func:`backend.worker.jobs.score_tasks`, the predictions importer
:func:`backend.worker.importer.flush_predictions`, or nothing: any other function, positional arguments, unknown
keyword arguments, a bound instance or a callback make the job fail with a logged reason. What the job
may ask for is also limited to data: the worker scores with its own settings (see
:mod:`backend.worker.jobs`).
"""

from __future__ import annotations

import logging
from typing import Any

from redis import Redis
from rq import Queue
from rq.exceptions import DeserializationError
from rq.job import Job
from rq.serializers import JSONSerializer

from backend.worker.job_names import ALLOWED, FLUSH_FUNC, JOB_FUNC, JOB_KWARGS

__all__ = ["ALLOWED", "FLUSH_FUNC", "JOB_FUNC", "JOB_KWARGS", "SERIALIZER", "RefusedJob", "ScoringJob", "refusal",
           "scoring_queue"]

log = logging.getLogger(__name__)

SERIALIZER = JSONSerializer


class RefusedJob(RuntimeError):
    """A job this worker will not run; the message says why."""


def refusal(job: Job) -> str | None:
    """Why ``job`` must not run, or None when it is a well-formed scoring job."""
    try:
        func_name = job.func_name
    except DeserializationError:
        return "job data is not JSON (a pickled job is never loaded)"
    if func_name not in ALLOWED:
        return f"job function {func_name!r} is not {JOB_FUNC!r} nor {FLUSH_FUNC!r}"
    if job.instance is not None or job.args:
        return "a scoring job takes keyword arguments only"
    unknown = set(job.kwargs) - ALLOWED[func_name]
    missing = ALLOWED[func_name] - set(job.kwargs)
    if unknown or missing:
        return f"job arguments differ from a scoring job's (unknown {sorted(unknown)}, missing {sorted(missing)})"
    if job._success_callback_name or job._failure_callback_name or job._stopped_callback_name:
        return "a scoring job has no callbacks"
    return None


def scoring_queue(name: str, connection: Redis) -> Queue:
    """The queue as workers read it: rq's JSON serializer and :class:`ScoringJob` (never pickle)."""
    return Queue(name, connection=connection, serializer=SERIALIZER, job_class=ScoringJob)


class ScoringJob(Job):
    """An rq ``Job`` that can only ever run the scoring job or the predictions importer."""

    @property
    def func(self) -> Any:
        reason = refusal(self)
        if reason is not None:
            log.error("refused job %s: %s", self.id, reason)
            raise RefusedJob(f"refused: {reason}")
        return super().func  # one of ALLOWED's names, imported by rq only now (no import cycle)

    @property
    def success_callback(self) -> None:
        return None

    @property
    def failure_callback(self) -> None:
        return None

    @property
    def stopped_callback(self) -> None:
        return None
