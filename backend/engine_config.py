"""Knobs and counters of a scoring run, kept apart from the engine that uses them.

:class:`EngineConfig` is what callers (the CLI, the RQ worker, the probes) set; :class:`EngineStats` is
what one :meth:`backend.engine.Engine.score` call reports back (the `label-audit score` summary).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from backend.ensemble import DEFAULT_QUORUM, Quorum
from backend import defaults
from backend.results import ItemResult
from backend.retry import RetryPolicy

#: Per-kind caps applied unless ``per_provider_concurrency`` says otherwise: the in-process model
#: evaluates one prompt at a time, so more threads would only queue on its lock (and time out there).
DEFAULT_PROVIDER_CONCURRENCY: Mapping[str, int] = {"local": 1}


@dataclass(frozen=True)
class EngineConfig:
    """Knobs of a scoring run.

    Parameters
    ----------
    threshold : float, optional
        Minimum confidence for a flag (None: 0.5 binary, 0.2 ordinal).
    delta : int, optional
        Overrides the distance part of the task's flag rule (None: the spec's rule, see
        :func:`backend.ensemble.flag_rule`).
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
        Exponential backoff start and cap, seconds (see :class:`backend.retry.RetryPolicy`).
    breaker_after : int or None
        Consecutive failed calls (after retries) that mark a provider down; None disables.
    breaker_cooldown : float
        Seconds a provider stays marked down before calls are tried again.
    delimit : bool
        Fence item texts in the prompt (see :mod:`backend.prompting`); the probes compare both.
    early_exit : bool
        Call members in their order and stop an item once the rest cannot change its flag or
        prediction (:mod:`backend.costs.early_exit`); cache hits are always used.
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

    def __post_init__(self) -> None:
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


@dataclass
class EngineStats:
    """Counts of one :meth:`Engine.score` call.

    ``llm_calls`` counts (item, member) calls sent to a provider (retries of one call count once;
    ``attempts`` counts every try); ``cache_hits`` counts answers taken from the cache or from an
    identical prompt earlier in the run; ``errors`` counts failed calls and bad input records by reason;
    ``member_errors`` the failed calls by member id and reason. ``call_seconds`` adds up the time
    spent inside providers (not the wait for a concurrency slot); ``wall_seconds`` is the run's.
    """

    items: int = 0
    scored: int = 0
    flagged: int = 0
    insufficient: int = 0
    suspicious: int = 0
    llm_calls: int = 0
    cache_hits: int = 0
    attempts: int = 0
    errors: Counter = field(default_factory=Counter)
    member_errors: dict[str, Counter] = field(default_factory=dict)
    items_with_calls: int = 0
    early_exit_skipped: int = 0  # calls early exit did not make
    stopped_early: int = 0  # items it stopped before their last member
    call_seconds: float = 0.0
    wall_seconds: float = 0.0

    def add_result(self, result: ItemResult) -> None:
        """Count one stored item result (the ledger summary's tally; the engine also counts its calls).

        An item error is counted under its reason only when no member ran (bad input); otherwise the
        members' own reasons are counted, so a failure is never counted twice.
        """
        self.items += 1
        self.suspicious += bool(result.suspicious_text)
        self.insufficient += bool(getattr(result, "insufficient", False))
        self.stopped_early += bool(getattr(result, "stopped_early", False))
        if result.error is None:
            self.scored += 1
            self.flagged += bool(result.flagged)
        elif not result.members:
            self.errors[result.error.reason] += 1
        for member in result.members:
            self.cache_hits += bool(member.cached)
            if member.error is not None:
                self.errors[member.error.reason] += 1
                self.member_errors.setdefault(member.member_id, Counter())[member.error.reason] += 1

    @property
    def seconds_per_item(self) -> float | None:
        """Wall time per item that needed at least one fresh call (None when all came from the cache)."""
        return self.wall_seconds / self.items_with_calls if self.items_with_calls else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "scored": self.scored,
            "flagged": self.flagged,
            "insufficient": self.insufficient,
            "suspicious": self.suspicious,
            "llm_calls": self.llm_calls,
            "cache_hits": self.cache_hits,
            "attempts": self.attempts,
            "errors": dict(sorted(self.errors.items())),
            "member_errors": {m: dict(sorted(c.items())) for m, c in sorted(self.member_errors.items())},
            "items_with_calls": self.items_with_calls,
            "early_exit_skipped_calls": self.early_exit_skipped,
            "stopped_early": self.stopped_early,
            "call_seconds": round(self.call_seconds, 4),
            "wall_seconds": round(self.wall_seconds, 4),
            "seconds_per_item": None if self.seconds_per_item is None else round(self.seconds_per_item, 4),
            "seconds_per_call": round(self.call_seconds / self.llm_calls, 4) if self.llm_calls else None,
        }
