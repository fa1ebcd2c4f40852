"""Gemini request/response handling against RECORDED responses.

Google's Gemini API cannot be reached from the test machine. The responses replayed here are
constructed from the public API reference (see ``_provenance`` in tests/data/recorded/gemini/), not
captured live. The real ``google-genai`` client talks to a local replay server through
``HttpOptions(base_url=...)``, so its real serialisation, parsing and ``APIError`` types run.
"""

from __future__ import annotations

import math

import pytest

from backend.providers.base import ProviderError
from backend.providers.gemini import GeminiProvider
from backend.providers.sampling import SamplingProvider
from tests.backend.providers.readings import (
    assert_normalised_masses,
    assert_read_from_top_alternatives,
    no_class_token_text,
)
from tests.backend.providers.replay import GEMINI_FAKE_KEY, ReplayServer, gemini_replay

FAKE_KEY = GEMINI_FAKE_KEY


@pytest.fixture()
def replay(monkeypatch: pytest.MonkeyPatch):
    yield from gemini_replay(monkeypatch)


def provider(replay: ReplayServer, **kwargs) -> GeminiProvider:
    # the replay server stands in for Google's endpoint: name the key for it, as a member would
    return GeminiProvider("gemini-2.0-flash", base_url=replay.url, **{
        "api_key_env": "GEMINI_API_KEY", "api_keys": {"GEMINI_API_KEY": FAKE_KEY}, **kwargs})


def test_top_candidates_give_normalised_probs_and_the_request_follows_the_method(replay: ReplayServer) -> None:
    replay.queue("gemini/top_logprobs_binary")
    dist = provider(replay).classify("Is it consistent?\nAnswer: ", ["0", "1"], timeout=5)

    p0, p1 = math.exp(-0.22314), math.exp(-1.77196)
    assert dist.method == "top_logprobs"
    assert dist.probs["0"] == pytest.approx(p0 / (p0 + p1))
    assert dist.raw_mass == pytest.approx(p0 + p1)
    assert dist.text == "0"
    assert dist.usage == {"prompt_token_count": 164, "candidates_token_count": 2, "total_token_count": 166}

    (req,) = replay.requests
    assert req.method == "POST" and req.path.endswith("/models/gemini-2.0-flash:generateContent")
    assert req.headers["x-goog-api-key"] == FAKE_KEY
    assert req.body["contents"] == [{"role": "user", "parts": [{"text": "Is it consistent?\nAnswer: "}]}]
    config = req.body["generationConfig"]
    assert config["temperature"] == 0.0 and config["maxOutputTokens"] == 2
    assert config["responseLogprobs"] is True and config["logprobs"] == 20


def test_class_token_after_a_space_token_and_missing_labels_get_zero(replay: ReplayServer) -> None:
    replay.queue("gemini/leading_space_ordinal")
    dist = provider(replay).classify("Rate.\nAnswer: ", ["1", "2", "3", "4", "5"], timeout=5)
    assert_normalised_masses(dist, {"1": math.exp(-1.20397), "2": math.exp(-0.51083), "3": math.exp(-2.30259)})


def test_chosen_candidate_only_gives_p_and_one_minus_p(replay: ReplayServer) -> None:
    replay.queue("gemini/chosen_only")
    dist = provider(replay, logprobs=0).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert dist.method == "chosen_logprob"
    assert dist.probs == {"1": pytest.approx(0.9, abs=1e-4), "0": pytest.approx(0.1, abs=1e-4)}
    assert "logprobs" not in replay.requests[0].body["generationConfig"]


def test_first_token_not_a_class_reads_that_positions_top_candidates(replay: ReplayServer) -> None:
    # The model began with "The", but "1" is among that position's top candidates: read it there.
    replay.queue("gemini/no_class_token")
    assert_read_from_top_alternatives(provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5))


def test_no_class_token_in_reach(replay: ReplayServer) -> None:
    replay.queue("gemini/no_class_token_out_of_reach")
    assert no_class_token_text(lambda: provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)) == "The text"


@pytest.mark.parametrize(
    ("recording", "reason", "retryable", "retry_after"),
    [
        ("gemini/rate_limited_429", "rate_limited", True, 38.0),  # from google.rpc.RetryInfo retryDelay
        ("gemini/server_error_500", "server_error", True, None),
        ("gemini/unavailable_503", "server_error", True, 5.0),  # from the Retry-After header
        ("gemini/unauthenticated_401", "auth", False, None),
        ("gemini/permission_denied_403", "auth", False, None),
        ("gemini/api_key_invalid_400", "auth", False, None),  # Gemini answers a bad key with 400
        ("gemini/bad_request_400", "bad_request", False, None),
    ],
)
def test_errors_map_to_provider_errors(replay: ReplayServer, recording, reason, retryable, retry_after) -> None:
    replay.queue(recording)
    with pytest.raises(ProviderError) as info:
        provider(replay).classify("q\nAnswer: ", ["0", "1"], timeout=5)
    err = info.value
    assert (err.reason, err.retryable, err.retry_after) == (reason, retryable, retry_after)
    assert FAKE_KEY not in str(err)
    assert len(replay.requests) == 1  # no SDK-side retries: the engine retries


def test_sampling_uses_candidate_count_and_counts_labels(replay: ReplayServer) -> None:
    replay.queue("gemini/samples_4")
    sampler = SamplingProvider(provider(replay), n=4, temperature=1.0, seed=3)
    dist = sampler.classify("q\nAnswer: ", ["0", "1"], timeout=5)
    assert dist.probs == {"0": pytest.approx(1 / 3), "1": pytest.approx(2 / 3)}
    assert dist.raw_mass == pytest.approx(3 / 4)
    config = replay.requests[0].body["generationConfig"]
    assert config["candidateCount"] == 4 and config["seed"] == 3 and config["temperature"] == 1.0


def test_google_api_key_is_accepted_and_never_in_cache_params() -> None:
    prov = GeminiProvider("gemini-2.0-flash", api_keys={"GOOGLE_API_KEY": FAKE_KEY})
    assert FAKE_KEY not in repr(prov.cache_params())
    with pytest.raises(ValueError, match="GEMINI_API_KEY"):
        GeminiProvider("gemini-2.0-flash")
