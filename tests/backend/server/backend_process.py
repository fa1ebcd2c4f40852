"""``label-audit serve`` as a real subprocess on a free loopback port (what Label Studio connects to)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.support.services import free_port

REPO = Path(__file__).resolve().parents[3]
CLI = Path(sys.executable).with_name("label-audit")


class BackendProcess:
    """The ML backend started by the real CLI; ``env`` carries the ensemble, ledger and queue settings."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.env = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, **env, "PYTHONPATH": str(REPO)}
        self.log = tempfile.NamedTemporaryFile(prefix="la-backend-", suffix=".log", delete=False)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *, timeout: float = 120.0) -> "BackendProcess":
        self.proc = subprocess.Popen([str(CLI), "serve", "--port", str(self.port)], cwd=REPO, env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"label-audit serve exited:\n{self.log_tail()}")
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=2)
                return self
            except urllib.error.HTTPError:  # 401 with auth on: it is up
                return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"label-audit serve not ready:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def log_tail(self, n: int = 3000) -> str:
        return Path(self.log.name).read_text(errors="replace")[-n:]
