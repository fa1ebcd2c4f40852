"""Retry a provider call: exponential backoff with full jitter, honouring Retry-After.

Only a :class:`~backend.providers.base.ProviderError` marked ``retryable`` (rate limits, 5xx, timeouts,
dropped connections) is retried; anything else fails at once, because asking again cannot help and
would only spend money. When the server says how long to wait (``retry_after``), we wait at least
that long.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

from backend.providers.base import ProviderError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to retry.

    Parameters
    ----------
    max_attempts : int
        Total tries, the first included (1 = no retry).
    base_delay : float
        Backoff before the second try; doubles each time, capped by ``max_delay``.
    max_delay : float
        Cap of one backoff sleep (also caps a server's Retry-After).
    jitter : bool
        Full jitter: sleep a uniform random time in [0, backoff] so that parallel callers that failed
        together do not come back together. A Retry-After is a floor, jitter only adds to it.
    """

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: bool = True

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("delays must be >= 0")

    def delay(self, attempt: int, error: ProviderError, *, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed try number ``attempt`` (1-based)."""
        backoff = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        if self.jitter:
            backoff = (rng or random).uniform(0, backoff)
        if error.retry_after is not None and error.retry_after > 0:
            return min(self.max_delay, max(float(error.retry_after), backoff))
        return backoff


@dataclass
class RetryOutcome:
    """What a retried call did: the tries made and the total time slept."""

    attempts: int = 0
    slept: float = 0.0


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    outcome: RetryOutcome | None = None,
) -> T:
    """Call ``fn`` until it succeeds, a non-retryable ProviderError occurs, or tries run out.

    The last ProviderError is re-raised; other exceptions propagate at once (they are bugs, not
    transient faults). ``outcome``, when given, is filled with the number of tries and the sleep time.
    """
    outcome = outcome if outcome is not None else RetryOutcome()
    while True:
        outcome.attempts += 1
        try:
            return fn()
        except ProviderError as exc:
            if not exc.retryable or outcome.attempts >= policy.max_attempts:
                raise
            wait = policy.delay(outcome.attempts, exc, rng=rng)
            outcome.slept += wait
            sleep(wait)
