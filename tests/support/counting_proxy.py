"""TEST/BENCH-ONLY: a reverse proxy in front of Label Studio that counts the requests it forwards.

Everything the workers and CLIs send to Label Studio goes through it, so a bench can print requests per
1k tasks per stage and name the endpoints that grow. ``GET /_proxy/stats`` returns
``{"total": n, "by_route": {"POST /api/projects/{id}/import/predictions": n, ...}}`` (ids replaced);
``POST /_proxy/reset`` zeroes the counts. Headers (the token among them) are forwarded, never stored.

    python -m tests.support.counting_proxy --port 8081 --target http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization",
       "content-length", "host"}
IDS = re.compile(r"/\d+(?=/|$)")


def route(method: str, path: str) -> str:
    """``POST /api/projects/12/import/predictions?x=1`` -> ``POST /api/projects/{id}/import/predictions``."""
    return f"{method} {IDS.sub('/{id}', path.split('?', 1)[0])}"


class CountingProxy(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], target: str) -> None:
        super().__init__(address, _Handler)
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _reply(self, code: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(code)
        for key, value in headers:
            if key.lower() not in HOP:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _forward(self) -> None:
        server: CountingProxy = self.server
        if self.path.startswith("/_proxy/"):
            if self.command == "POST" and self.path == "/_proxy/reset":
                with server.lock:
                    server.counts.clear()
            with server.lock:
                body = {"total": sum(server.counts.values()), "by_route": dict(server.counts)}
            self._reply(200, [("Content-Type", "application/json")], json.dumps(body).encode())
            return
        length = int(self.headers.get("Content-Length") or 0)
        payload = self.rfile.read(length) if length else None
        with server.lock:
            server.counts[route(self.command, self.path)] += 1
        conn = http.client.HTTPConnection(*server.target, timeout=600)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            headers["Host"] = f"{server.target[0]}:{server.target[1]}"
            conn.request(self.command, self.path, body=payload, headers=headers)
            resp = conn.getresponse()
            self._reply(resp.status, resp.getheaders(), resp.read())
        finally:
            conn.close()

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _forward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--target", required=True)
    args = parser.parse_args()
    CountingProxy(("127.0.0.1", args.port), args.target).serve_forever()


if __name__ == "__main__":
    main()
