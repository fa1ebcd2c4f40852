"""Real ``rq worker`` processes for the tests: started in their own process group, killed by pid.

A worker runs its jobs in a forked "work horse" that rq puts in its own session (``setsid``), so
killing the worker's process group would leave the horse running: ``kill()`` SIGKILLs the worker and
every descendant found in /proc, like a container or machine going away.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backend.demo.processes import descendants

RQ_BIN = Path(sys.executable).with_name("rq")
REPO = Path(__file__).resolve().parents[3]


class RQWorkerProcess:
    """``rq worker -w backend.worker.recovery.AuditWorker`` (or ``worker_class``) on one queue with a given
    environment."""

    def __init__(self, redis_url: str, queue: str, env: dict[str, str], *,
                 worker_class: str = "backend.worker.recovery.AuditWorker") -> None:
        self.redis_url = redis_url
        self.queue = queue
        # passive OpenMP waiting: busy-waiting llama.cpp threads crawl on a shared 2-core machine
        self.env = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, **env, "PYTHONPATH": str(REPO)}
        for secret in ("LABEL_STUDIO_API_KEY", "OPENAI_API_KEY"):
            if secret not in env:
                self.env.pop(secret, None)
        self.log = tempfile.NamedTemporaryFile(prefix="rq-worker-", suffix=".log", delete=False)
        self.proc: subprocess.Popen | None = None
        self.worker_class = worker_class

    def start(self) -> "RQWorkerProcess":
        cmd = [str(RQ_BIN), "worker", "--url", self.redis_url, "--with-scheduler",
               "-w", self.worker_class, self.queue]
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        return self

    def kill(self) -> None:
        """SIGKILL the worker and all its descendants (the work horse included)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        for pid in [self.proc.pid, *descendants(self.proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Ask for a warm shutdown, then make sure nothing of it is left."""
        if self.proc is None:
            return
        horses = descendants(self.proc.pid)
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)
        for pid in horses:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def log_tail(self, n: int = 3000) -> str:
        return Path(self.log.name).read_text(errors="replace")[-n:]


def wait_until(predicate, *, timeout: float, interval: float = 0.3, what: str = "condition") -> None:
    """Poll ``predicate`` until true; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
