"""A threaded HTTP server on 127.0.0.1 (a free port) that runs while a ``with`` block does.

The test servers that stand in for what cannot run here (recorded cloud responses, a recording
OpenAI-compatible judge) differ only in their handler; this owns their socket, thread and shutdown.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TypeVar

S = TypeVar("S", bound="LoopbackHTTPServer")


class LoopbackHTTPServer:
    """Serve ``handler`` on 127.0.0.1 from ``__enter__`` to ``__exit__``; ``root_url`` is where."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def root_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self: S) -> S:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
