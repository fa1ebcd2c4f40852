"""TEST-ONLY: an OpenAI-compatible judge whose answer over any option set is a hash of the prompt.

Not a model and no verdict worth anything: a worker process can call it over HTTP like a remote LLM, and every
question of every control (letters ``A``–``H`` or grades ``0``–``9``, whatever the prompt offers) gets a
distribution, so each item gets a verdict and some are flagged. Tests that check the bookkeeping around the
verdicts (the census identity of the report) use it where the embedded model would take minutes.
The first generated token is a word, so the class tokens are read from its ``top_logprobs`` (the fallback of
:func:`backend.providers.logprobs.distribution_from_positions` for chat models that start with a word).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any

from tests.support.recording_openai_server import RecordingOpenAIServer

#: Every class token a generic prompt may ask for: option letters and grade digits.
TOKENS = tuple("ABCDEFGH") + tuple("0123456789")


def hashed_completion(model: str, prompt: str) -> dict[str, Any]:
    """A chat completion whose first token's alternatives weigh every class token by the prompt's hash."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    weights = [1.0 + 12.0 * (digest[k] / 255.0) ** 4 for k in range(len(TOKENS))]
    total = sum(weights)
    top = [{"token": tok, "logprob": math.log(w / total), "bytes": None} for tok, w in zip(TOKENS, weights)]
    first = {"token": "Answer", "logprob": -0.01, "bytes": None, "top_logprobs": top}
    return {"id": "chatcmpl-hash", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "Answer"},
                         "logprobs": {"content": [first]}}],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 1, "total_tokens": len(prompt) // 4 + 1}}


class HashJudgeServer(RecordingOpenAIServer):
    """:class:`RecordingOpenAIServer` answering :func:`hashed_completion` (``requests`` records the bodies)."""

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(body)
        prompt = json.dumps(body.get("messages", []), sort_keys=True)
        return 200, hashed_completion(str(body.get("model", "hash-judge")), prompt)
