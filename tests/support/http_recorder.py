"""A real HTTP server on 127.0.0.1 that records every request (path, ``Authorization``): it stands in for a
server a task's image URL could name, so tests read "nothing was fetched" from the server itself."""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from PIL import Image


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (7, 5), color: str = "red") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format=fmt)
    return buf.getvalue()


@dataclass
class Recorder:
    """A real HTTP server on 127.0.0.1 answering from ``routes`` and recording each request."""

    routes: dict = field(default_factory=dict)
    seen: list = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "Recorder":
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                recorder.seen.append((self.path, self.headers.get("Authorization")))
                route = recorder.routes.get(urlsplit(self.path).path)
                if route is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, headers, body = route(self.path) if callable(route) else route
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                if "Content-Length" not in headers and "Transfer-Encoding" not in headers:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if headers.get("Transfer-Encoding") == "chunked":
                    for start in range(0, len(body), 4096):
                        piece = body[start:start + 4096]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
