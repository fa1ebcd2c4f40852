"""What every provider's recorded-response tests assert about the shared logprobs reading.

OpenAI and Gemini answers are read by the same code (:mod:`backend.providers.logprobs`); these checks
state its outcomes once, and each provider's test feeds them its own recorded response.
"""

from __future__ import annotations

from typing import Callable, Mapping

import pytest

from backend.providers.base import ClassDistribution, NoClassTokenError


def assert_normalised_masses(dist: ClassDistribution, masses: Mapping[str, float]) -> None:
    """Each label's probability is its class tokens' mass over the total; a label without any gets 0."""
    total = sum(masses.values())
    assert set(masses) <= set(dist.probs)
    for label, prob in dist.probs.items():
        assert prob == pytest.approx(masses.get(label, 0.0) / total)
    assert sum(dist.probs.values()) == pytest.approx(1.0)


def assert_read_from_top_alternatives(dist: ClassDistribution) -> None:
    """A first token that is no class, with "1" among that position's top alternatives: read there."""
    assert dist.method == "top_logprobs_fallback"
    assert dist.probs["1"] > dist.probs["0"]
    assert sum(dist.probs.values()) == pytest.approx(1.0)


def no_class_token_text(classify: Callable[[], ClassDistribution]) -> str | None:
    """The generated text of a call that must fail with ``no_class_token`` (not retryable)."""
    with pytest.raises(NoClassTokenError) as info:
        classify()
    assert info.value.reason == "no_class_token" and not info.value.retryable
    return info.value.text
