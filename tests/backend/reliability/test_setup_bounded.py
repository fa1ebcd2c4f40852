"""/setup asks a failing Label Studio once, then reuses the answer; /health says Label Studio is away
(real `label-audit serve`, a real HTTP listener standing in for a failing Label Studio)."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.backend.reliability.test_degraded_backend import _serve
from tests.backend.security.test_backend_http import GOOD, LABEL_CONFIG, _request

pytestmark = [pytest.mark.redis]


class FailingLabelStudio:
    """Answers 503 to everything and counts the requests (a Label Studio restarting behind a proxy)."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                outer.requests.append(self.path)
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def test_setup_asks_a_failing_label_studio_once_and_then_uses_its_cache(tmp_path, redis_url) -> None:
    ls = FailingLabelStudio()
    proc = _serve(tmp_path, redis_url, LABEL_STUDIO_URL=ls.url, LABEL_STUDIO_API_KEY="t" * 40)
    try:
        for _ in range(3):
            status, body, _ = _request(f"{proc.url}/setup", headers=GOOD, body={"project": "7.1", "schema": LABEL_CONFIG})
            assert status == 200 and body["model_version"]
        project_reads = [p for p in ls.requests if p.startswith("/api/projects/7")]
        # before: the SDK retried each read with backoff (3 requests a /setup, 9 in all, ~3-5 s each /setup)
        assert len(project_reads) == 1, ls.requests
    finally:
        proc.stop()
        ls.server.shutdown()


def test_health_says_label_studio_is_unavailable_when_it_hangs(tmp_path, redis_url) -> None:
    hanging = socket.socket()
    hanging.bind(("127.0.0.1", 0))
    hanging.listen(16)  # accepts connections, never answers
    proc = _serve(tmp_path, redis_url, LABEL_STUDIO_URL=f"http://127.0.0.1:{hanging.getsockname()[1]}",
                  LABEL_STUDIO_API_KEY="t" * 40)
    try:
        status, body, _ = _request(f"{proc.url}/health", headers=GOOD)
        assert status == 200 and body["status"] == "DEGRADED"
        assert body["checks"]["label_studio"].startswith("unavailable")
        status, body, _ = _request(f"{proc.url}/setup", headers=GOOD, body={"project": "7.1", "schema": LABEL_CONFIG})
        assert status == 200  # within gunicorn's and our own timeouts, whatever Label Studio does
    finally:
        proc.stop()
        hanging.close()
