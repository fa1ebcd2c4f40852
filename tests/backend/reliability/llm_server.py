"""TEST-ONLY OpenAI chat-completions server: a fixed answer after ``latency`` seconds, calls counted per prompt.

It judges nothing (the answer is always class "1" with fixed logprobs); it stands in for a paid LLM so a
test or a benchmark can count how many calls a run pays for, and make calls slow enough for two
workers to overlap.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = {"id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
          "choices": [{"index": 0, "message": {"role": "assistant", "content": "1"}, "finish_reason": "stop",
                       "logprobs": {"content": [{"token": "1", "logprob": -0.105, "bytes": [49], "top_logprobs": [
                           {"token": "1", "logprob": -0.105, "bytes": [49]},
                           {"token": "0", "logprob": -2.408, "bytes": [48]}]}]}}],
          "usage": {"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101}}


class LLMServer:
    """OpenAI chat-completions protocol, ``latency`` s per call, counting calls per prompt text."""

    def __init__(self, latency: float) -> None:
        self.calls: Counter[str] = Counter()
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                with lock:
                    outer.calls[json.dumps(body.get("messages"), sort_keys=True)] += 1
                time.sleep(latency)
                data = json.dumps(ANSWER).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
