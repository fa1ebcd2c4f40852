"""A per-provider circuit breaker: stop waiting on a server that went away.

Without it, each remaining call to a dead server waits through its own retries and backoff; with it,
after ``threshold`` consecutive transient failures the provider's calls fail fast (reason
``provider_down``) for ``cooldown`` seconds, and the next run retries them.
"""

from __future__ import annotations

import threading
import time

class CircuitBreaker:
    """Marks a provider down after ``threshold`` consecutive transient failures, for ``cooldown`` s."""

    def __init__(self, threshold: int | None, cooldown: float):
        self.threshold = threshold
        self.cooldown = cooldown
        self.failures = 0
        self.open_until = 0.0
        self.last_reason = ""
        self.lock = threading.Lock()

    def allow(self) -> bool:
        with self.lock:
            return self.threshold is None or time.monotonic() >= self.open_until

    def record(self, ok: bool, *, transient: bool = False, reason: str = "") -> None:
        with self.lock:
            if ok:
                self.failures = 0
            elif transient and self.threshold is not None:
                self.failures += 1
                self.last_reason = reason
                if self.failures >= self.threshold:
                    self.open_until = time.monotonic() + self.cooldown
