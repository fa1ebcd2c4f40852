"""TEST-ONLY: an OpenAI-compatible chat-completions server on 127.0.0.1 that records every request.

Not a model. It stands in for a vision model behind the OpenAI protocol (GPT-4o, vLLM, llama.cpp server
with a projector), which cannot run on this machine: tests point the real ``openai`` SDK at it and
assert exactly what was sent (the image content parts, byte for byte), while it answers one fixed class
as the first generated token with ``top_logprobs``, in the shape of OpenAI's chat completions
(:func:`tests.support.latency_judge.completion`, reused). With ``refuse_images`` it answers any request
carrying an ``image_url`` part the way a text-only llama.cpp ``llama-server`` (started without
``--mmproj``) does: that status and ``image input is not supported - hint: ...``.

    with RecordingOpenAIServer(answer="cat", other="dog") as server:
        OpenAIProvider("vision-test", base_url=server.url).classify(...)
        server.requests[0]["messages"]
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.latency_judge import completion
from tests.support.loopback_http import LoopbackHTTPServer

#: What llama.cpp's server says to image content when no multimodal projector is loaded.
LLAMA_SERVER_REFUSAL = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"


def image_urls(body: Any) -> list[str]:
    """Every ``image_url.url`` of the chat messages in one recorded request body, in order."""
    urls: list[str] = []
    for message in (body or {}).get("messages", []) if isinstance(body, dict) else []:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                urls.append(str((part.get("image_url") or {}).get("url", "")))
    return urls


class RecordingOpenAIServer(LoopbackHTTPServer):
    """A threaded HTTP server answering ``POST /v1/chat/completions``; ``requests`` holds the JSON bodies.

    Parameters
    ----------
    answer, other : str
        The class token answered (probability ``confidence``) and the one alternative (the rest).
    confidence : float
        Probability of ``answer``, within (0.5, 1).
    refuse_images : int or None
        An HTTP status (a text-only ``llama-server`` says 500; forks and newer builds say 400): every
        request with an image part gets it with :data:`LLAMA_SERVER_REFUSAL`. None: images are accepted.
    """

    def __init__(self, *, answer: str = "1", other: str = "0", confidence: float = 0.9,
                 refuse_images: int | None = None) -> None:
        if not 0.5 < confidence < 1.0:
            raise ValueError("confidence must be within (0.5, 1)")
        if refuse_images is not None and not 400 <= refuse_images < 600:
            raise ValueError("refuse_images is an HTTP error status (4xx or 5xx) or None")
        self.answer, self.other, self.confidence = answer, other, confidence
        self.refuse_images = refuse_images
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())

    @property
    def url(self) -> str:
        """The ``base_url`` to give the SDK (ends in ``/v1``)."""
        return f"{self.root_url}/v1"

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON answer for one request body (recorded first)."""
        with self._lock:
            self.requests.append(body)
        if self.refuse_images is not None and image_urls(body):
            kind = "invalid_request_error" if self.refuse_images < 500 else "server_error"
            return self.refuse_images, {"error": {"code": self.refuse_images, "message": LLAMA_SERVER_REFUSAL,
                                                  "type": kind}}
        prompt_chars = len(json.dumps(body.get("messages", [])))
        answer = completion(str(body.get("model", "recording-judge")), self.answer, self.other, self.confidence,
                            prompt_chars)
        n = int(body.get("n") or 1)
        if n > 1:  # sampling: n identical choices, each answering the class
            answer["choices"] = [{**answer["choices"][0], "index": i} for i in range(n)]
        if not body.get("logprobs"):
            for choice in answer["choices"]:
                choice["logprobs"] = None
        return 200, answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the openai client expects

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "recording-judge", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                    return
                with server._lock:
                    server.paths.append(self.path)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
                    return
                self._send(*server.reply(body))

        return Handler


__all__ = ["LLAMA_SERVER_REFUSAL", "RecordingOpenAIServer", "image_urls"]
