"""The OpenAI-protocol provider and the sampling fallback against a REAL llama_cpp.server on 127.0.0.1.

SmolLM2-135M judges at chance, so these tests assert the protocol and the shapes, never verdicts.
The prompts are chosen so that greedy decoding does (or does not) start with a digit.
"""

from __future__ import annotations

import pytest

from backend.providers.base import NoClassTokenError, ProviderError
from backend.providers.logprobs import class_of
from backend.providers.openai_compat import OpenAIProvider
from backend.providers.sampling import SamplingProvider, first_label
from tests.support.llm import LlamaServer

pytestmark = pytest.mark.llm

LIKERT = list("12345")
DIGIT_SYSTEM = "Reply with a single digit."
RATE = "Rate the summary from 1 to 5. Reply with one digit only.\n\nSummary: Good.\n\nAnswer: "
BINARY = (
    "Is the statement supported by the document? Reply with 1 for yes or 0 for no, nothing else.\n\n"
    "Document: The bridge was closed on Monday.\nStatement: The bridge was closed on Monday.\n\nAnswer: "
)


def test_top_logprobs_at_the_first_class_token(llama_server: LlamaServer) -> None:
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url, system=DIGIT_SYSTEM)
    dist = prov.classify(RATE, LIKERT, timeout=120)

    assert dist.method == "top_logprobs"
    assert list(dist.probs) == LIKERT and sum(dist.probs.values()) == pytest.approx(1.0)
    assert 0.0 < dist.raw_mass <= 1.0
    # At temperature 0 the generated class token is the likeliest label at its position.
    assert dist.probs[first_label(dist.text, LIKERT)] == max(dist.probs.values())
    assert dist.usage["prompt_tokens"] > 0 and dist.usage["completion_tokens"] <= 2


def test_no_class_token_in_the_first_two_tokens(llama_server: LlamaServer) -> None:
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url)
    with pytest.raises(NoClassTokenError) as info:
        prov.classify(BINARY, ["0", "1"], timeout=120)
    assert info.value.text and not any(class_of(w, ["0", "1"]) for w in info.value.text.split())


def test_a_server_without_top_logprobs_gives_a_clear_error(llama_server: LlamaServer) -> None:
    # llama_cpp.server returns no logprobs at all unless top_logprobs > 0.
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url, top_logprobs=0, system=DIGIT_SYSTEM)
    with pytest.raises(ProviderError) as info:
        prov.classify(RATE, LIKERT, timeout=120)
    assert info.value.reason == "no_logprobs" and not info.value.retryable


def test_a_tiny_timeout_is_a_retryable_timeout(llama_server: LlamaServer) -> None:
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url)
    with pytest.raises(ProviderError) as info:
        prov.classify(RATE, LIKERT, timeout=0.0001)
    assert info.value.reason == "timeout" and info.value.retryable


def test_sampling_against_the_real_server_is_seeded(llama_server: LlamaServer) -> None:
    def sample(seed: int):
        inner = OpenAIProvider(llama_server.model, base_url=llama_server.base_url, system=DIGIT_SYSTEM)
        return SamplingProvider(inner, n=6, temperature=1.0, seed=seed).classify(RATE, LIKERT, timeout=120)

    first, again = sample(3), sample(3)
    assert first.method == "sampling"
    assert first.usage["samples"] == 6  # the server ignores `n`: the provider topped up with calls
    assert sum(first.probs.values()) == pytest.approx(1.0)
    assert 0.0 < first.raw_mass <= 1.0
    assert first.raw_mass * 6 == pytest.approx(first.usage["samples_with_label"])
    assert (again.probs, again.raw_mass) == (first.probs, first.raw_mass)


def test_killed_server_is_a_retryable_connection_error_until_restarted(private_llama_server: LlamaServer) -> None:
    server = private_llama_server
    prov = OpenAIProvider(server.model, base_url=server.base_url, system=DIGIT_SYSTEM)
    before = prov.classify(RATE, LIKERT, timeout=120)
    server.stop()
    with pytest.raises(ProviderError) as info:
        prov.classify(RATE, LIKERT, timeout=30)
    assert info.value.reason == "connection" and info.value.retryable
    server.start()
    assert prov.classify(RATE, LIKERT, timeout=120).probs == pytest.approx(before.probs, abs=1e-6)
