"""TEST-ONLY provider for unit tests of the engine's bookkeeping (ordering, caching, retries, faults).

It is not an LLM and judges nothing: it derives a distribution from the sha256 of the prompt, so the
same prompt always gets the same answer and different prompts get different ones. Integration tests
use the real local model and a real ``llama_cpp.server`` instead.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from backend.providers.base import ClassDistribution, ProviderError


class HashTestProvider:
    """Deterministic prompt -> distribution, with scripted failures and call counting.

    Parameters
    ----------
    model : str
        Model name (enters cache params).
    fail : callable, optional
        ``fail(prompt, attempt) -> ProviderError | None``: raise the returned error on that try
        (``attempt`` counts tries of that prompt, from 1).
    delay : float
        Seconds each call sleeps (to exercise concurrency).
    """

    name = "hash"

    def __init__(
        self,
        model: str = "hash-1",
        *,
        fail: Callable[[str, int], ProviderError | None] | None = None,
        delay: float = 0.0,
        params: Mapping[str, Any] | None = None,
    ):
        self.model = model
        self.fail = fail
        self.delay = delay
        self.params = dict(params or {})
        self.calls: Counter[str] = Counter()
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        with self.lock:
            self.calls[prompt] += 1
            attempt = self.calls[prompt]
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            if self.delay:
                time.sleep(self.delay)
            if self.fail is not None:
                error = self.fail(prompt, attempt)
                if error is not None:
                    raise error
            return hash_distribution(prompt, labels)
        finally:
            with self.lock:
                self.active -= 1

    def cache_params(self) -> Mapping[str, Any]:
        return {"kind": "hash", **self.params}

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())


def hash_distribution(prompt: str, labels: Sequence[str]) -> ClassDistribution:
    """The distribution HashTestProvider returns for ``prompt``."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    weights = [digest[i] + 1 for i in range(len(labels))]
    total = sum(weights)
    return ClassDistribution(
        probs={label: w / total for label, w in zip(labels, weights)}, raw_mass=0.9, method="logits"
    )
