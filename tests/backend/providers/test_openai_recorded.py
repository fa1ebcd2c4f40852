"""OpenAI-cloud request/response handling against RECORDED responses.

api.openai.com cannot be reached from the test machine. The responses replayed here are constructed
from the public API reference (see each file's ``_provenance`` in tests/data/recorded/openai/), not
captured live. The real ``openai`` SDK talks to a local replay server through ``base_url``, so its
real request serialisation, response parsing and exception types are exercised.
"""

from __future__ import annotations

import math

import pytest

from backend.providers.base import ProviderError
from backend.providers.openai_compat import OpenAIProvider
from backend.providers.sampling import SamplingProvider
from tests.backend.providers.readings import (
    assert_normalised_masses,
    assert_read_from_top_alternatives,
    no_class_token_text,
)
from tests.backend.providers.replay import ReplayServer

FAKE_KEY = "sk-test-recorded-0123456789abcdefDONOTLEAK"


@pytest.fixture()
def replay():
    with ReplayServer() as server:
        yield server


def provider(replay: ReplayServer, **kwargs) -> OpenAIProvider:
    # the replay server stands in for OpenAI's endpoint: name the key for it, as a member would (its value is
    # what the settings resolved and the registry passes)
    return OpenAIProvider("gpt-4o-mini", base_url=f"{replay.url}/v1", **{
        "api_key_env": "OPENAI_API_KEY", "api_keys": {"OPENAI_API_KEY": FAKE_KEY}, **kwargs})


def test_top_logprobs_give_normalised_probs_and_the_request_follows_the_method(replay: ReplayServer) -> None:
    replay.queue("openai/top_logprobs_binary")
    dist = provider(replay).classify("Is it consistent?\nAnswer: ", ["0", "1"], timeout=5)

    # "1" and " 1" both count for label 1; "The"/"Yes" are not class tokens.
    p1, p0 = math.exp(-0.10536) + math.exp(-4.60517), math.exp(-2.40795)
    assert dist.method == "top_logprobs"
    assert dist.probs["1"] == pytest.approx(p1 / (p1 + p0))
    assert dist.probs["0"] == pytest.approx(p0 / (p1 + p0))
    assert dist.raw_mass == pytest.approx(p1 + p0)
    assert dist.text == "1"
    assert dist.usage["prompt_tokens"] == 187

    (req,) = replay.requests
    assert req.method == "POST" and req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {FAKE_KEY}"
    body = req.body
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == [{"role": "user", "content": "Is it consistent?\nAnswer: "}]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 2
    assert body["logprobs"] is True and body["top_logprobs"] == 20


def test_class_token_in_second_position_and_labels_missing_from_topk_get_zero(replay: ReplayServer) -> None:
    replay.queue("openai/leading_newline_ordinal")
    dist = provider(replay).classify("Rate it.\nAnswer: ", ["1", "2", "3", "4", "5"], timeout=5)
    assert_normalised_masses(dist, {"3": math.exp(-1.60944), "4": math.exp(-0.22314), "5": math.exp(-3.21888)})


def test_chosen_token_only_gives_p_and_one_minus_p(replay: ReplayServer) -> None:
    replay.queue("openai/chosen_only", "openai/chosen_only")
    prov = provider(replay, top_logprobs=0)
    dist = prov.classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert dist.method == "chosen_logprob"
    assert dist.probs["0"] == pytest.approx(0.7, abs=1e-4)
    assert dist.probs["1"] == pytest.approx(0.3, abs=1e-4)
    assert dist.raw_mass == pytest.approx(0.7, abs=1e-4)
    assert "top_logprobs" not in replay.requests[0].body and replay.requests[0].body["logprobs"] is True

    # Ordinal: the remaining 1 - p is spread evenly over the other labels (documented choice).
    ordinal = prov.classify("q\nAnswer: ", ["0", "1", "2", "3"], timeout=5)
    assert ordinal.probs["0"] == pytest.approx(0.7, abs=1e-4)
    assert [ordinal.probs[k] for k in "123"] == pytest.approx([0.1] * 3, abs=1e-4)


def test_first_token_not_a_class_reads_that_positions_top_logprobs(replay: ReplayServer) -> None:
    # The model began with "The", but "1" is among that position's top logprobs: read it there.
    replay.queue("openai/no_class_token")
    assert_read_from_top_alternatives(provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5))


def test_no_class_token_in_reach_raises_with_the_text(replay: ReplayServer) -> None:
    replay.queue("openai/no_class_token_out_of_reach")
    assert no_class_token_text(lambda: provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)) == "The statement"


def test_missing_logprobs_is_a_clear_non_retryable_error(replay: ReplayServer) -> None:
    replay.queue("openai/no_logprobs")
    with pytest.raises(ProviderError) as info:
        provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert info.value.reason == "no_logprobs" and not info.value.retryable


def test_429_is_retryable_and_honours_retry_after_ms(replay: ReplayServer) -> None:
    replay.queue("openai/rate_limited_429")
    with pytest.raises(ProviderError) as info:
        provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    err = info.value
    assert err.reason == "rate_limited" and err.retryable
    assert err.retry_after == pytest.approx(1.5)  # retry-after-ms wins over retry-after: 2
    assert len(replay.requests) == 1  # the SDK itself must not retry: the engine does


def test_429_with_an_http_date_retry_after(replay: ReplayServer) -> None:
    replay.queue("openai/rate_limited_429_date")
    with pytest.raises(ProviderError) as info:
        provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert info.value.reason == "rate_limited" and info.value.retry_after > 3600


def test_500_is_a_retryable_server_error(replay: ReplayServer) -> None:
    replay.queue("openai/server_error_500")
    with pytest.raises(ProviderError) as info:
        provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert info.value.reason == "server_error" and info.value.retryable
    assert len(replay.requests) == 1


def test_401_is_auth_and_no_key_leaks(replay: ReplayServer) -> None:
    replay.queue("openai/unauthorized_401")
    prov = provider(replay)
    with pytest.raises(ProviderError) as info:
        prov.classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert info.value.reason == "auth" and not info.value.retryable
    message = str(info.value)
    assert "Incorrect API key" in message
    assert FAKE_KEY not in message and "k9Qz" not in message and "sk-proj-*" not in message
    assert FAKE_KEY not in repr(prov.cache_params())


def test_other_4xx_is_bad_request(replay: ReplayServer) -> None:
    replay.queue("openai/bad_request_400")
    with pytest.raises(ProviderError) as info:
        provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert info.value.reason == "bad_request" and not info.value.retryable
    assert "logprobs" in str(info.value)


def test_sampling_counts_labels_in_recorded_choices(replay: ReplayServer) -> None:
    replay.queue("openai/samples_n5")
    sampler = SamplingProvider(provider(replay), n=5, temperature=0.8, seed=7)
    dist = sampler.classify("q\nAnswer: ", ["0", "1"], timeout=5)
    # choices: "1", " 0", "1", "\n1", "Yes," -> 3 x "1", 1 x "0", one without a label
    assert dist.method == "sampling"
    assert dist.probs == {"0": pytest.approx(0.25), "1": pytest.approx(0.75)}
    assert dist.raw_mass == pytest.approx(4 / 5)
    (req,) = replay.requests  # the server honoured n, so one call sufficed
    assert req.body["n"] == 5 and req.body["temperature"] == 0.8 and req.body["seed"] == 7
    assert "logprobs" not in req.body


def test_missing_key_without_base_url_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIProvider("gpt-4o-mini")
