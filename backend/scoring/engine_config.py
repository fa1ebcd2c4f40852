"""Knobs of a scoring run, kept apart from the engine that uses them.

:class:`EngineConfig` is what callers (the CLI, the RQ worker, the probes) set; what a run reports back
is :class:`backend.scoring.run_stats.EngineStats`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from backend.scoring.ensemble import DEFAULT_QUORUM, Quorum
from backend.common import defaults
from backend.scoring.order_skip import OrderSkip
from backend.scoring.retry import RetryPolicy

#: Per-kind caps applied unless ``per_provider_concurrency`` says otherwise: the in-process model
#: evaluates one prompt at a time, so more threads would only queue on its lock (and time out there).
DEFAULT_PROVIDER_CONCURRENCY: Mapping[str, int] = {"local": 1}


@dataclass(frozen=True)
class EngineConfig:
    """Knobs of a scoring run.

    Parameters
    ----------
    threshold : float, optional
        Minimum confidence for a flag (None: the family default, 0.55 binary, 0.45 nominal, 0.2 ordinal).
    delta : int, optional
        Overrides the distance part of the task's flag rule (None: the spec's rule, see
        :func:`backend.scoring.ensemble.flag_rule`).
    quorum : Quorum
        How many members must answer for a verdict to count (default: half, every model).
    concurrency : int
        Calls in flight at once, all providers together.
    per_provider_concurrency : dict, optional
        Cap per provider kind (``{"openai": 4}``), over :data:`DEFAULT_PROVIDER_CONCURRENCY`
        (``local``: 1); kinds not named get ``concurrency``.
    timeout : float
        Per-call timeout in seconds, handed to the provider.
    max_attempts : int
        Tries per call, the first included; only retryable errors are retried.
    backoff_base, backoff_max : float
        Exponential backoff start and cap, seconds (see :class:`backend.scoring.retry.RetryPolicy`).
    breaker_after : int or None
        Consecutive failed calls (after retries) that mark a provider down; None disables.
    breaker_cooldown : float
        Seconds a provider stays marked down before calls are tried again.
    delimit : bool
        Fence item texts in the prompt (see :mod:`backend.scoring.prompting`); the probes compare both.
    early_exit : bool
        Call members in their order and stop an item once the rest cannot change its flag or
        prediction (:mod:`backend.scoring.early_exit`); cache hits are always used.
    order_skip : OrderSkip or bool or str
        Which items' later option orders are left unasked (:class:`backend.scoring.order_skip.OrderSkip`): off,
        exact (once the first order settles the flag) or margin (lossy); a bool or its text is parsed to it.
    """

    threshold: float | None = None
    delta: int | None = None
    quorum: Quorum = DEFAULT_QUORUM
    concurrency: int = defaults.CONCURRENCY
    per_provider_concurrency: Mapping[str, int] | None = None
    timeout: float = defaults.TIMEOUT
    max_attempts: int = defaults.MAX_ATTEMPTS
    backoff_base: float = defaults.BACKOFF_BASE
    backoff_max: float = defaults.BACKOFF_MAX
    breaker_after: int | None = defaults.BREAKER_AFTER
    breaker_cooldown: float = defaults.BREAKER_COOLDOWN
    delimit: bool = True
    early_exit: bool = False
    order_skip: OrderSkip = OrderSkip.parse(defaults.ORDER_SKIP)

    def __post_init__(self) -> None:
        object.__setattr__(self, "order_skip", OrderSkip.parse(self.order_skip, name="order_skip"))
        if self.concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        if any(v < 1 for v in (self.per_provider_concurrency or {}).values()):
            raise ValueError("per_provider_concurrency values must be >= 1")
        if self.timeout <= 0:
            raise ValueError("timeout must be > 0")
        if self.delta is not None and self.delta < 0:
            raise ValueError("delta must be >= 0")
        if self.breaker_after is not None and self.breaker_after < 1:
            raise ValueError("breaker_after must be >= 1 or None")
        if self.threshold is not None and not 0.0 <= self.threshold <= 1.0:
            raise ValueError("threshold must be within [0, 1]")

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(max_attempts=self.max_attempts, base_delay=self.backoff_base, max_delay=self.backoff_max)
