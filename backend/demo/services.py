"""Start — or find already running — each service of the demo, as detached background processes.

A service is reused when its recorded process still runs *and* answers on its port (Label Studio with
our token, the backend with our basic auth); a port held by something else is an error naming the
option that moves it, since Label Studio would silently pick another port and never answer ours.
Redis is reused whenever one answers on the port (the queue name is private to this demo home); the
demo starts and later stops only the one it started.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Mapping

import httpx

import backend
from backend.demo.home import ADMIN, DemoHome
from backend.common.environment import environment
from backend.demo.processes import ProcessTable
from backend.labelstudio.local import LocalLabelStudio, find_label_studio_bin
from backend.common.private_files import private_dir

PACKAGE_ROOT = Path(backend.__file__).resolve().parents[1]
INSTALL_SCRIPT = PACKAGE_ROOT / "scripts" / "install_labelstudio.sh"
# Variables that would change the demo's ensemble or queue if inherited from the caller's shell.
INHERITED_OVERRIDES = ("LABEL_AUDIT_MEMBERS", "LABEL_AUDIT_MEMBERS_FILE", "LABEL_AUDIT_SPEC",
                       "LABEL_AUDIT_LABEL_FIELD", "LABEL_AUDIT_CONTROL", "LABEL_AUDIT_THRESHOLD")


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def first_free_port(start: int, *, tries: int = 50) -> int:
    """``start`` when nothing listens there, else the next free port above it."""
    for port in range(start, start + tries):
        if not port_open(port):
            return port
    raise RuntimeError(f"no free port in {start}..{start + tries - 1}")


def label_studio_binary(*, say, configured: str | Path | None = None) -> Path:
    """The Label Studio 1.23.2 executable (``configured``: the settings' ``LABEL_STUDIO_BIN``), installed into
    its own venv first when missing."""
    found = find_label_studio_bin(configured)
    if found is not None:
        return found
    if not INSTALL_SCRIPT.is_file():
        raise RuntimeError("Label Studio 1.23.2 is not installed: `pip install label-studio==1.23.2` into a "
                           "separate venv and set LABEL_STUDIO_BIN to its label-studio executable")
    say("Installing Label Studio 1.23.2 into its own venv (about 1 GB, a few minutes, once per machine)...")
    out = subprocess.run(["bash", str(INSTALL_SCRIPT)], capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines or not Path(lines[-1]).is_file():
        raise RuntimeError(f"installing Label Studio failed:\n{out.stderr[-2000:]}")
    return Path(lines[-1])


def child_env(extra: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment with this checkout importable first and the demo's settings on top."""
    env = {k: v for k, v in environment().items() if k not in INHERITED_OVERRIDES}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # llama.cpp threads busy-wait otherwise
    env.update(extra)
    return env


def ensure_redis(home: DemoHome, table: ProcessTable, *, port: int) -> str:
    """A Redis URL: any Redis answering on ``port``, else one started here (no persistence, loopback)."""
    url = f"redis://127.0.0.1:{port}/0"
    if _redis_answers(port):
        return url
    if port_open(port):
        raise RuntimeError(f"port {port} is busy but does not answer as Redis: choose another with --redis-port")
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError(f"no Redis answers on 127.0.0.1:{port} and redis-server is not installed "
                           "(apt-get install redis-server, or start one and pass --redis-port)")
    private_dir(home.redis_dir)
    table.spawn("redis", [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                          "--dir", str(home.redis_dir)], env=dict(environment()), log=home.log("redis"), cwd=home.root)
    _wait(lambda: _redis_answers(port), timeout=30, what=f"Redis on port {port}", log=home.log("redis"))
    return url


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def label_studio(home: DemoHome, *, instance: str, port: int, secrets: Mapping[str, Any], binary: Path) -> LocalLabelStudio:
    """The (not yet started) Label Studio of ``instance`` with this machine's admin, token and key."""
    mine = secrets[instance]
    return LocalLabelStudio(binary=binary, data_dir=home.ls_data(instance), port=port, username=ADMIN,
                            password=mine["password"], token=mine["token"], secret_key=mine["secret_key"])


def ensure_label_studios(table: ProcessTable, instances: Mapping[str, LocalLabelStudio], *, say) -> None:
    """Start the instances that are not running, in parallel (a first start runs ~45 s of migrations)."""
    todo = {}
    for name, ls in instances.items():
        if table.get(f"labelstudio-{name}") is not None and _eventually(ls.ready, timeout=120):
            continue
        table.stop(f"labelstudio-{name}")
        if port_open(ls.port):
            raise RuntimeError(f"port {ls.port} is busy (not this demo's Label Studio): choose another port")
        private_dir(ls.data_dir)
        todo[name] = ls
    if not todo:
        return
    say("Starting Label Studio (" + ", ".join(f"{n} on port {ls.port}" for n, ls in todo.items())
        + "); a first start on this machine creates Label Studio's schema, about a minute...")

    with ThreadPoolExecutor(max_workers=len(todo)) as pool:
        futures = [pool.submit(ls.start, timeout=600) for ls in todo.values()]
        recorded: set[str] = set()
        while True:  # record each launcher as soon as it exists, so --stop finds it even mid-start
            for name, ls in todo.items():
                pid = ls.pid
                if name not in recorded and pid is not None:
                    try:
                        table.adopt(f"labelstudio-{name}", pid)
                    except RuntimeError:
                        pass  # it exited at once: start() reports why
                    recorded.add(name)
            if all(f.done() for f in futures):
                break
            time.sleep(0.2)
        for future in futures:
            future.result()


def ensure_backend(home: DemoHome, table: ProcessTable, *, port: int, env: Mapping[str, str],
                   auth: tuple[str, str]) -> str:
    """The ML backend (``label-audit serve``) with basic auth: its URL."""
    url = f"http://127.0.0.1:{port}"
    if table.get("backend") is not None and _backend_up(url, auth):
        return url
    table.stop("backend")
    if port_open(port):
        raise RuntimeError(f"port {port} is busy (not this demo's backend): choose another with --backend-port")
    table.spawn("backend", [sys.executable, "-m", "backend.cli", "serve", "--port", str(port)],
                env=env, log=home.log("backend"), cwd=home.root)
    _wait(lambda: _backend_up(url, auth), timeout=120, what="the backend", log=home.log("backend"),
          alive=lambda: table.get("backend") is not None)
    return url


def _backend_up(url: str, auth: tuple[str, str]) -> bool:
    try:
        return httpx.get(f"{url}/health", auth=auth, timeout=3.0).status_code == 200
    except httpx.HTTPError:
        return False


def ensure_worker(home: DemoHome, table: ProcessTable, *, env: Mapping[str, str]) -> None:
    """One rq worker on the demo's queue (``label-audit worker``)."""
    if table.get("worker") is None:
        table.spawn("worker", [sys.executable, "-m", "backend.cli", "worker"], env=env, log=home.log("worker"),
                    cwd=home.root)


def _eventually(check, *, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(1.0)
    return False


def _wait(check, *, timeout: float, what: str, log: Path, alive=lambda: True) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        if not alive():
            break
        time.sleep(0.3)
    raise RuntimeError(f"{what} did not come up; see {log}")
