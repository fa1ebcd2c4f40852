"""Retries: only retryable errors, exponential backoff with jitter, Retry-After honoured."""

from __future__ import annotations

import random

import pytest

from backend.providers.base import NoClassTokenError, ProviderError
from backend.scoring.retry import RetryOutcome, RetryPolicy, call_with_retry


class Flaky:
    def __init__(self, errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def test_retries_retryable_errors_with_growing_backoff():
    sleeps: list[float] = []
    fn = Flaky([ProviderError("server_error", "500", retryable=True)] * 3)
    policy = RetryPolicy(max_attempts=5, base_delay=1.0, max_delay=30.0, jitter=False)
    outcome = RetryOutcome()
    assert call_with_retry(fn, policy, sleep=sleeps.append, outcome=outcome) == "ok"
    assert sleeps == [1.0, 2.0, 4.0] and fn.calls == 4
    assert outcome.attempts == 4 and outcome.slept == 7.0


def test_retry_after_is_a_floor_and_is_capped():
    sleeps: list[float] = []
    errors = [
        ProviderError("rate_limited", "429", retryable=True, retry_after=7.5),
        ProviderError("rate_limited", "429", retryable=True, retry_after=500.0),
    ]
    policy = RetryPolicy(max_attempts=3, base_delay=0.1, max_delay=60.0, jitter=True)
    call_with_retry(Flaky(errors), policy, sleep=sleeps.append, rng=random.Random(0))
    assert sleeps[0] >= 7.5 and sleeps[0] <= 7.5 + 0.1
    assert sleeps[1] == 60.0


def test_jitter_stays_within_the_backoff():
    policy = RetryPolicy(base_delay=2.0, max_delay=10.0, jitter=True)
    err = ProviderError("timeout", "t", retryable=True)
    rng = random.Random(1)
    delays = [policy.delay(4, err, rng=rng) for _ in range(200)]
    assert all(0 <= d <= 10.0 for d in delays) and len(set(delays)) > 100


def test_non_retryable_fails_at_once():
    sleeps: list[float] = []
    fn = Flaky([NoClassTokenError("no 0/1", text="maybe")])
    with pytest.raises(NoClassTokenError):
        call_with_retry(fn, RetryPolicy(), sleep=sleeps.append)
    assert fn.calls == 1 and sleeps == []


def test_gives_up_after_max_attempts_with_the_last_error():
    fn = Flaky([ProviderError("connection", f"down {i}", retryable=True) for i in range(5)])
    with pytest.raises(ProviderError, match="down 2"):
        call_with_retry(fn, RetryPolicy(max_attempts=3, jitter=False), sleep=lambda s: None)
    assert fn.calls == 3


def test_other_exceptions_propagate_untouched():
    def boom():
        raise KeyError("bug")

    with pytest.raises(KeyError):
        call_with_retry(boom, RetryPolicy(), sleep=lambda s: None)


def test_policy_validates():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(base_delay=-1)
