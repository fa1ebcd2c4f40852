"""`label-audit worker`'s rq scheduler child stops when the worker is SIGKILLed (before: it ran on,
holding the queue's scheduler lock, enqueueing scheduled jobs for a worker that no longer existed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from redis import Redis
from rq.scheduler import RQScheduler

from backend.demo.processes import descendants
from tests.backend.worker.rq_process import wait_until

pytestmark = [pytest.mark.redis]
REPO = Path(__file__).resolve().parents[3]


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its new parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_scheduler_child_dies_with_a_killed_worker(redis_url, tmp_path):
    queue = f"test-sched-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(REPO), "REDIS_URL": redis_url, "LABEL_AUDIT_QUEUE": queue,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
           "LABEL_AUDIT_MEMBERS": "openai:m@http://127.0.0.1:9/v1"}
    log = open(tmp_path / "worker.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "backend.cli", "worker"], cwd=REPO, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    conn = Redis.from_url(redis_url)
    lock = RQScheduler.get_locking_key(queue)
    try:
        wait_until(lambda: descendants(proc.pid) and conn.get(lock), timeout=120, what="the scheduler child")
        children = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        wait_until(lambda: not any(_alive(p) for p in children), timeout=30, what="the scheduler child to stop")
        assert conn.get(lock) is None  # released on the way out, not left to its 60 s expiry
    finally:
        for pid in [proc.pid, *descendants(proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()
    assert "is gone, stopping" in (tmp_path / "worker.log").read_text(errors="replace")
