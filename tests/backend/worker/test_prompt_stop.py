"""A real ``rq worker`` of ours, idle, obeys SIGTERM within ``docker stop``'s 10 s grace (it took 15 s and more:
rq's command thread slept 60 s at a time and redis-py 8.2 waits for it), for the in-process and the forking
worker alike."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.backend.worker.rq_process import RQWorkerProcess, wait_until

pytestmark = [pytest.mark.redis]

#: ``docker stop`` sends SIGKILL this many seconds after SIGTERM (its default grace period).
DOCKER_GRACE = 10


@pytest.mark.parametrize("worker_class", ["AuditWorker", "ForkingAuditWorker"])
def test_an_idle_worker_exits_on_sigterm_before_docker_would_kill_it(redis_url, queue, env, worker_class):
    worker = RQWorkerProcess(redis_url, queue.name, env,
                             worker_class=f"backend.worker.recovery.{worker_class}").start()
    try:
        wait_until(lambda: "Listening on" in worker.log_tail(), timeout=120, what="the worker to listen")
        time.sleep(3)  # idle, its command thread waiting for a message (as a worker between jobs is)
        os.killpg(worker.proc.pid, signal.SIGTERM)
        started = time.monotonic()
        try:
            code = worker.proc.wait(timeout=DOCKER_GRACE)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{worker_class} still running {DOCKER_GRACE} s after SIGTERM:\n{worker.log_tail()}")
        assert code == 0, worker.log_tail()
        log = worker.log_tail()
        assert "warm shut down requested" in log and "unsubscribing from channel" in log
        assert time.monotonic() - started < DOCKER_GRACE
    finally:
        worker.stop()
