"""A tiny HTTP server on 127.0.0.1 that answers with recorded responses and keeps the requests.

The OpenAI and Gemini clouds cannot be reached from here, so their SDKs are pointed (``base_url``)
at this server: the real SDK serialises the request, parses the response and raises its own error
types. The recordings under ``tests/data/recorded/`` are constructed from the public API reference
schemas, not captured from the live services (each file says so in ``_provenance``).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

from tests.support.loopback_http import LoopbackHTTPServer

RECORDED = Path(__file__).resolve().parents[2] / "data" / "recorded"


def load_recording(name: str) -> dict[str, Any]:
    """``tests/data/recorded/<name>.json``: ``{"status", "headers", "body"}`` (+ ``_provenance``)."""
    return json.loads((RECORDED / f"{name}.json").read_text())


@dataclass
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class ReplayServer(LoopbackHTTPServer):
    """Serves queued recordings in order (one per request) and records every request it receives."""

    def __init__(self) -> None:
        self.requests: list[SeenRequest] = []
        self._queue: deque[dict[str, Any]] = deque()
        self._lock = threading.Lock()
        super().__init__(self._handler())

    @property
    def url(self) -> str:
        return self.root_url

    def queue(self, *recordings: str | dict[str, Any]) -> "ReplayServer":
        """Queue recordings (names under ``tests/data/recorded`` or dicts) to answer the next requests."""
        with self._lock:
            for rec in recordings:
                self._queue.append(load_recording(rec) if isinstance(rec, str) else rec)
        return self

    def _next(self, seen: SeenRequest) -> dict[str, Any]:
        with self._lock:
            self.requests.append(seen)
            if self._queue:
                return self._queue.popleft()
        return {"status": 599, "headers": {}, "body": {"error": {"message": "replay server: no recording queued"}}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                rec = server._next(SeenRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                                               body))
                payload = json.dumps(rec.get("body")).encode()
                self.send_response(int(rec.get("status", 200)))
                for key, value in (rec.get("headers") or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        return Handler



GEMINI_FAKE_KEY = "AIzaTestRecorded0123456789abcdefDONOTLEAK"  # shaped like a key, so a leak check finds it


def gemini_replay(monkeypatch: Any) -> Iterator[ReplayServer]:
    """The body of the Gemini tests' ``replay`` fixture: the fake key set, a replay server running."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_FAKE_KEY)
    with ReplayServer() as server:
        yield server
