"""TEST/BENCH-ONLY: an OpenAI-compatible chat server that answers valid logprobs after a set latency.

Not a model: it measures the orchestration around the calls (queue, workers, ledger, Label Studio), the
part that must scale, with a latency-bound server standing in for a remote LLM. Each answer is the
class written in the prompt as ``[truth:X]`` (else ``1``) with probability ``--confidence``, as the
first generated token with ``top_logprobs`` over both classes, in the shape of OpenAI's chat
completions (what the ``openai`` provider reads). ``GET /_stats`` returns ``{"calls": n}``.

    python -m tests.support.latency_judge --port 8000 --latency 0.5
"""

from __future__ import annotations

import argparse
import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TRUTH = re.compile(r"\[truth:(\w+)\]")


def completion(model: str, answer: str, other: str, confidence: float, prompt_chars: int) -> dict:
    """One chat completion choosing ``answer`` with ``confidence`` (``other`` gets the rest)."""
    top = [{"token": answer, "logprob": math.log(confidence), "bytes": None},
           {"token": other, "logprob": math.log(1.0 - confidence), "bytes": None}]
    return {
        "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": answer},
                     "logprobs": {"content": [{**top[0], "top_logprobs": top}]}}],
        "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": 1, "total_tokens": prompt_chars // 4 + 1},
    }


class JudgeServer(ThreadingHTTPServer):
    """The server: ``latency`` seconds per answer, any number of answers in flight (one thread each)."""

    daemon_threads = True
    request_queue_size = 512

    def __init__(self, address: tuple[str, int], *, latency: float, confidence: float = 0.9) -> None:
        if latency < 0 or not 0.5 < confidence < 1.0:
            raise ValueError("latency must be >= 0 and confidence within (0.5, 1)")
        super().__init__(address, _Handler)
        self.latency = latency
        self.confidence = confidence
        self.calls = 0
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the openai client reuses its connections

    def log_message(self, *args) -> None:  # one line per call would cost more than the call
        pass

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/_stats":
            self._send(200, {"calls": self.server.calls})
        else:
            self._send(200, {"object": "list", "data": [{"id": "bench-judge", "object": "model"}]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        found = TRUTH.search(prompt)
        answer = found.group(1) if found else "1"
        other = "0" if answer != "0" else "1"
        time.sleep(self.server.latency)
        with self.server.lock:
            self.server.calls += 1
        self._send(200, completion(str(body.get("model", "bench-judge")), answer, other, self.server.confidence,
                                   len(prompt)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--confidence", type=float, default=0.9)
    args = parser.parse_args()
    JudgeServer(("127.0.0.1", args.port), latency=args.latency, confidence=args.confidence).serve_forever()


if __name__ == "__main__":
    main()
