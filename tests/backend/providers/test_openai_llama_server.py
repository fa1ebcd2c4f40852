"""The OpenAI-protocol provider and the sampling fallback against a REAL llama_cpp.server on 127.0.0.1.

SmolLM2-135M judges at chance and its greedy first token differs between CPUs, so these tests never
assume what the model says: a plain SDK call first shows what the server generates at temperature 0,
the labels are taken from that answer, and the provider's reading of the same answer is checked
(protocol and shapes, never verdicts).
"""

from __future__ import annotations

import math

import openai
import pytest

from backend.providers.base import NoClassTokenError, ProviderError
from backend.providers.openai_compat import OpenAIProvider
from backend.providers.sampling import SamplingProvider
from tests.support.llm import LlamaServer

pytestmark = pytest.mark.llm

PROMPT = (
    "Is the statement supported by the document? Reply with 1 for yes or 0 for no.\n\n"
    "Document: The bridge was closed on Monday.\nStatement: The bridge was closed on Monday.\n\nAnswer: "
)
NEVER = "label-that-is-no-token"


def greedy_answer(server: LlamaServer) -> tuple[str, list]:
    """What the server generates for PROMPT at temperature 0 (text, per-token logprobs), via the bare SDK."""
    client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
    response = client.chat.completions.create(
        model=server.model, messages=[{"role": "user", "content": PROMPT}],
        logprobs=True, top_logprobs=20, max_tokens=2, temperature=0,
    )
    choice = response.choices[0]
    return choice.message.content, choice.logprobs.content


def test_top_logprobs_are_read_at_the_first_class_token(llama_server: LlamaServer) -> None:
    text, tokens = greedy_answer(llama_server)
    position = next(t for t in tokens if t.token.strip())  # the first non-blank generated token
    chosen = position.token.strip()
    alternative = next(a.token.strip() for a in position.top_logprobs if a.token.strip() not in ("", chosen))
    labels = [chosen, alternative, NEVER]

    dist = OpenAIProvider(llama_server.model, base_url=llama_server.base_url).classify(PROMPT, labels, timeout=120)

    mass = {label: sum(math.exp(a.logprob) for a in position.top_logprobs if a.token.strip() == label)
            for label in labels}
    assert dist.method == "top_logprobs" and dist.text == text
    assert dist.probs[NEVER] == 0.0  # a label outside the top-k gets 0
    # The server reuses its cached prompt on the second call, which moves logprobs in the 3rd decimal.
    assert dist.probs[chosen] == pytest.approx(mass[chosen] / (mass[chosen] + mass[alternative]), abs=0.02)
    assert dist.probs[chosen] >= dist.probs[alternative]  # greedy picked it, so it is the likelier label
    assert dist.raw_mass == pytest.approx(min(mass[chosen] + mass[alternative], 1.0), abs=0.02)
    assert sum(dist.probs.values()) == pytest.approx(1.0)
    assert dist.usage["prompt_tokens"] > 0 and dist.usage["completion_tokens"] <= 2


def test_no_class_token_in_the_first_two_tokens(llama_server: LlamaServer) -> None:
    text, _ = greedy_answer(llama_server)
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url)
    with pytest.raises(NoClassTokenError) as info:
        prov.classify(PROMPT, [NEVER, NEVER + "-2"], timeout=120)
    assert info.value.text == text and not info.value.retryable


def test_a_server_without_top_logprobs_gives_a_clear_error(llama_server: LlamaServer) -> None:
    # llama_cpp.server returns no logprobs at all unless top_logprobs > 0.
    _, tokens = greedy_answer(llama_server)
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url, top_logprobs=0)
    with pytest.raises(ProviderError) as info:
        prov.classify(PROMPT, [tokens[0].token.strip() or "x", NEVER], timeout=120)
    assert info.value.reason == "no_logprobs" and not info.value.retryable


def test_a_tiny_timeout_is_a_retryable_timeout(llama_server: LlamaServer) -> None:
    prov = OpenAIProvider(llama_server.model, base_url=llama_server.base_url)
    with pytest.raises(ProviderError) as info:
        prov.classify(PROMPT, ["0", "1"], timeout=0.0001)
    assert info.value.reason == "timeout" and info.value.retryable


def test_sampling_against_the_real_server_is_seeded(llama_server: LlamaServer) -> None:
    _, tokens = greedy_answer(llama_server)
    # Every word among the 20 likeliest first tokens is a label, so samples name labels.
    labels = list(dict.fromkeys(w for a in tokens[0].top_logprobs if (w := a.token.strip()).isalnum()))

    def sample(seed: int):
        inner = OpenAIProvider(llama_server.model, base_url=llama_server.base_url)
        return SamplingProvider(inner, n=8, temperature=1.0, seed=seed).classify(PROMPT, labels, timeout=120)

    first, again = sample(3), sample(3)
    assert first.method == "sampling"
    assert first.usage["samples"] == 8  # the server ignores `n`: the provider topped up with calls
    assert sum(first.probs.values()) == pytest.approx(1.0)
    assert 0.0 < first.raw_mass <= 1.0
    assert first.raw_mass * 8 == pytest.approx(first.usage["samples_with_label"])
    assert all(p * first.usage["samples_with_label"] == pytest.approx(round(p * first.usage["samples_with_label"]))
               for p in first.probs.values())  # empirical shares: counts over hits
    assert (again.probs, again.raw_mass) == (first.probs, first.raw_mass)


def test_killed_server_is_a_retryable_connection_error_until_restarted(private_llama_server: LlamaServer) -> None:
    server = private_llama_server
    text, _ = greedy_answer(server)
    prov = OpenAIProvider(server.model, base_url=server.base_url)
    with pytest.raises(NoClassTokenError):
        prov.classify(PROMPT, [NEVER, NEVER + "-2"], timeout=120)  # a full round trip works
    server.stop()
    with pytest.raises(ProviderError) as info:
        prov.classify(PROMPT, ["0", "1"], timeout=30)
    assert info.value.reason == "connection" and info.value.retryable
    server.start()
    assert greedy_answer(server)[0] == text  # same port, same model, same answer
