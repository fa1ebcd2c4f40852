"""Services and measurements of ``bench/bench_scale.py``: private Redis, PostgreSQL databases, processes.

Each process the bench measures is its own subprocess: a CLI stage's peak RSS comes from ``wait4``'s
rusage, a long-running process's (workers, Label Studio) from ``VmHWM`` in /proc (the kernel's peak
resident set of that process).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from backend.demo.processes import descendants  # noqa: E402
from tests.support.services import PG_ADMIN_URL, free_port, port_open  # noqa: E402


def wait_until(predicate, *, timeout: float, what: str, interval: float = 0.5) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """This process's environment plus ``extra``, importing this checkout (never another one's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LABEL_STUDIO_API_KEY", "OPENAI_API_KEY")}
    return {**env, "PYTHONPATH": str(REPO), "OMP_WAIT_POLICY": "PASSIVE", **extra}


def peak_rss_mb(pid: int) -> float | None:
    """The peak resident set (``VmHWM``) of a live process, in MB; None when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process and its waited-for children (a forking worker's work
    horses), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def tree_peak_mb(pid: int) -> float:
    """The largest ``VmHWM`` among a process and its descendants, in MB."""
    peaks = [peak_rss_mb(p) for p in [pid, *descendants(pid)]]
    return max((p for p in peaks if p is not None), default=0.0)


@dataclass
class Service:
    """A background subprocess of the bench (its own session, stopped by its process group)."""

    proc: subprocess.Popen
    log: Path

    @classmethod
    def start(cls, args: list[str], env: dict[str, str], *, name: str) -> "Service":
        log = Path(tempfile.gettempdir()) / f"bench-scale-{name}-{uuid.uuid4().hex[:6]}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        return cls(proc, log)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, *, grace: float = 20.0) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)


def start_http_service(module: str, args: list[str], *, name: str) -> tuple[Service, str]:
    """``python -m module --port N args...``; returns it and its base URL once it answers."""
    port = free_port()
    service = Service.start([sys.executable, "-m", module, "--port", str(port), *args], child_env({}), name=name)
    wait_until(lambda: port_open("127.0.0.1", port), timeout=30, what=f"{name} on port {port}")
    return service, f"http://127.0.0.1:{port}"


def get_json(url: str, *, method: str = "GET") -> Any:
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


class PrivateRedis:
    """A redis-server of the bench's own, so its memory figures are the audit's alone."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.port = free_port()
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: port_open("127.0.0.1", self.port), timeout=20, what="private redis-server")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def peak_memory_mb(self) -> float:
        from redis import Redis

        return int(Redis.from_url(self.url).info("memory")["used_memory_peak"]) / 2**20

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


def create_database(prefix: str) -> tuple[str, str]:
    """A fresh PostgreSQL database: (name, SQLAlchemy URL)."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"


def database_mb(name: str) -> float:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        return conn.execute("SELECT pg_database_size(%s)", (name,)).fetchone()[0] / 2**20


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass(frozen=True)
class StageRun:
    """One CLI stage: wall seconds, peak RSS (MB), exit code and the tail of its output."""

    seconds: float
    peak_mb: float
    returncode: int
    stdout: str
    stderr: str


def run_stage(args: list[str], env: dict[str, str]) -> StageRun:
    """Run a CLI to completion and measure it (``wait4`` gives this child's own peak RSS)."""
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=err)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    err.seek(0)
    return StageRun(seconds, usage.ru_maxrss / 1024, proc.returncode, out.read().decode(errors="replace"),
                    err.read().decode(errors="replace")[-3000:])


def start_workers(count: int, env: dict[str, str], *, fork: bool = False) -> list[Service]:
    args = [sys.executable, "-m", "backend.cli", "worker", *(["--fork"] if fork else [])]
    return [Service.start(args, child_env(env), name=f"worker{k}") for k in range(count)]


def wait_workers(redis_url: str, queue: str, count: int) -> None:
    """Until ``count`` workers listen on ``queue`` (their imports done)."""
    from redis import Redis
    from rq import Queue, Worker

    conn = Redis.from_url(redis_url)
    wait_until(lambda: Worker.count(queue=Queue(queue, connection=conn)) >= count, timeout=180,
               what=f"{count} workers on {queue}")
