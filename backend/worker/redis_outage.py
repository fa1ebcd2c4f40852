"""A worker that outlasts a Redis outage at any point of its loop, not only while it waits for a job.

rq retries Redis errors only inside its dequeue wait. Anywhere else in its work loop (the suspension
check, maintenance, the worker's state and heartbeat, a job's success or failure bookkeeping) a
``ConnectionError`` reaches the loop's catch-all and the worker quits: a Redis restart that happens as a
job ends stopped every worker that was finishing one. :class:`OutlastRedisMixin` waits for Redis
instead, with backoff, and then goes on.

A job whose end could not be recorded keeps its verdicts (the job writes them to the ledger, not to
Redis) and stays in rq's started registry; when its heartbeat expires, rq's abandoned-job cleanup
retries it, and the idempotent job (:mod:`backend.worker.jobs`) stores nothing twice.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, TypeVar

import redis

log = logging.getLogger(__name__)

REDIS_ERRORS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
FIRST_WAIT = 1.0  # seconds before the first retry; doubled up to MAX_WAIT
MAX_WAIT = 30.0

T = TypeVar("T")


class OutlastRedisMixin:
    """Retry the loop's Redis calls until Redis answers; a stop request still stops the worker."""

    def _through_outage(self, what: str, call: Callable[[], T]) -> T:
        wait = FIRST_WAIT
        while True:
            try:
                return call()
            except REDIS_ERRORS as exc:
                if getattr(self, "_stop_requested", False):
                    raise
                log.warning("Redis unreachable during %s (%s); retrying in %.0f s", what, type(exc).__name__, wait)
                time.sleep(wait)
                wait = min(wait * 2, MAX_WAIT)

    def _wait_for_redis(self) -> None:
        self._through_outage("the reconnection check", self.connection.ping)

    def check_for_suspension(self, burst: bool) -> Any:
        return self._through_outage("the suspension check", lambda: super(OutlastRedisMixin, self)
                                    .check_for_suspension(burst))

    def run_maintenance_tasks(self) -> Any:
        return self._through_outage("maintenance", lambda: super(OutlastRedisMixin, self).run_maintenance_tasks())

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> Any:
        if pipeline is not None:  # commands are only queued; whoever executes the pipeline handles errors
            return super().heartbeat(timeout, pipeline=pipeline)
        return self._through_outage("the worker's heartbeat", lambda: super(OutlastRedisMixin, self)
                                    .heartbeat(timeout))

    def set_state(self, state: str, pipeline: Any = None) -> Any:
        if pipeline is not None:
            return super().set_state(state, pipeline=pipeline)
        return self._through_outage("the worker's state", lambda: super(OutlastRedisMixin, self).set_state(state))

    def execute_job(self, job: Any, queue: Any) -> Any:
        """Run the job; if Redis went away before its end was recorded, wait for Redis and go on."""
        try:
            return super().execute_job(job, queue)
        except REDIS_ERRORS as exc:
            if getattr(self, "_stop_requested", False):
                raise
            log.warning("job %s: its end could not be recorded, Redis unreachable (%s); rq retries it once "
                        "its heartbeat expires, and its stored verdicts are kept", job.id, type(exc).__name__)
            self._wait_for_redis()
            return None
