"""The provider calls of one engine: concurrency caps, circuit breaker, budget, retries, cache write.

Split from :mod:`backend.scoring.engine` so the engine reads as "items in, verdicts out" and this module as
"one prompt in, one answer or one error out". The provider's own judgement of whether an error is
retryable travels with the error (``ProviderError.retryable``), never guessed back from its text.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from backend.scoring.breaker import CircuitBreaker
from backend.scoring.cache import CallCache
from backend.scoring.engine_config import DEFAULT_PROVIDER_CONCURRENCY, EngineConfig
from backend.scoring.members import Member
from backend.providers.base import ClassDistribution, ProviderError
from backend.providers.http_errors import redact
from backend.scoring.retry import RetryOutcome, call_with_retry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallOutcome:
    """What one provider call produced (in a worker thread)."""

    dist: ClassDistribution | None = None
    error: str | None = None
    detail: str | None = None
    retryable: bool = False  # the provider's own judgement (ProviderError.retryable), kept, never guessed
    latency: float | None = None
    attempts: int = 0
    called: bool = True  # False when the breaker skipped it


class CallRunner:
    """Makes the calls of one engine: shared by its threads, one breaker per provider object."""

    def __init__(self, members: Sequence[Member], *, labels: Sequence[str], cache: CallCache | None,
                 config: EngineConfig, stopping: threading.Event, budget: Any = None,
                 secrets: Iterable[str] = ()) -> None:
        self.labels = tuple(labels)  # what the judge answers with (lettered options map back to labels)
        self.cache = cache
        self.timeout = config.timeout
        self.policy = config.retry_policy()
        self.stopping = stopping
        self.budget = budget  # backend.costs.budget.Budget: checked before every call (--max-cost)
        self.secrets = tuple(secrets)  # configured secret values (Settings.secrets()), redacted from errors
        caps = {**DEFAULT_PROVIDER_CONCURRENCY, **(config.per_provider_concurrency or {})}
        self.semaphores = {
            kind: threading.BoundedSemaphore(min(caps.get(kind, config.concurrency), config.concurrency))
            for kind in {m.kind for m in members}
        }
        self.breakers: dict[int, CircuitBreaker] = {}
        for m in members:
            self.breakers.setdefault(id(m.provider), CircuitBreaker(config.breaker_after, config.breaker_cooldown))

    def call(self, member: Member, prompt: str, key: str, *, images: Sequence[Any] = ()) -> CallOutcome:
        """One member's answer to ``prompt`` (with ``images``, :class:`backend.providers.image_part.ImagePart`, sent
        only to a provider that sees: the engine leaves the others out of image items)."""
        breaker = self.breakers[id(member.provider)]
        if not breaker.allow():
            return CallOutcome(
                error="provider_down", retryable=True,
                detail=f"not called: {breaker.failures} calls in a row to this provider failed "
                f"(last: {breaker.last_reason}); retried on the next run",
                called=False,
            )
        reserved = self.budget.reserve(member, prompt) if self.budget is not None else 0.0
        if reserved is None:
            return CallOutcome(error="over_budget", detail="not called: --max-cost reached; rerun to resume",
                            called=False)
        outcome = self._call_within_budget(member, prompt, key, breaker, tuple(images))
        if self.budget is not None:
            if outcome.dist is not None:
                self.budget.settle(reserved, member, outcome.dist.usage)
            else:
                self.budget.release(reserved)
        return outcome

    def _call_within_budget(self, member: Member, prompt: str, key: str, breaker: CircuitBreaker,
                            images: tuple[Any, ...] = ()) -> CallOutcome:
        semaphore = self.semaphores[member.kind]
        labels = self.labels
        timeout = self.timeout

        spent = [0.0]  # seconds inside the provider, all tries (not the wait for a concurrency slot)

        def attempt() -> ClassDistribution:
            with semaphore:
                if self.stopping.is_set():  # the run was interrupted while this call queued
                    raise ProviderError("cancelled", "run interrupted before this call was sent")
                began = time.perf_counter()
                try:
                    if images:  # text calls keep the plain Provider protocol
                        return member.provider.classify(prompt, labels, timeout=timeout, images=images)
                    return member.provider.classify(prompt, labels, timeout=timeout)
                finally:
                    spent[0] += time.perf_counter() - began

        tries = RetryOutcome()
        try:
            dist = call_with_retry(attempt, self.policy, outcome=tries)
        except ProviderError as exc:
            breaker.record(False, transient=exc.retryable, reason=exc.reason)
            detail = redact(str(exc), (*self.secrets, *getattr(member.provider, "_secrets", ())))
            return CallOutcome(error=exc.reason, detail=detail, retryable=exc.retryable, latency=spent[0],
                            attempts=tries.attempts)
        except Exception as exc:  # a provider bug must not kill the run
            # Unexpected errors may quote a request; redact anything key-shaped before it is logged or stored.
            detail = redact(f"{type(exc).__name__}: {exc}", (*self.secrets, *getattr(member.provider, "_secrets", ())))
            log.error("provider %s raised %s", member.id, detail)
            return CallOutcome(error="exception", detail=detail, latency=spent[0], attempts=tries.attempts)
        latency = spent[0]
        breaker.record(True)
        if self.cache is not None:
            try:
                self.cache.put(
                    key, dist, provider=member.kind, model=member.model, template_id=member.template.id,
                    template_version=member.template.version, latency_s=latency,
                )
            except Exception:  # the answer is still good for this run; the next run will ask again
                log.exception("could not write the call cache")
        return CallOutcome(dist=dist, latency=latency, attempts=tries.attempts)
