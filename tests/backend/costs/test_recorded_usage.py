"""Token usage of OpenAI and Gemini through the engine into the accounting, on RECORDED responses.

The clouds cannot be reached from the test machine: the responses replayed here are the recordings of
tests/data/recorded/ (built from the public API references, see their ``_provenance``), served to the
real SDKs by a local replay server. What is checked: each provider's usage fields reach the per-member
accounting as input/output tokens, and the cost is tokens x the example price file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.costs.accounting import Accountant
from backend.costs.prices import load_prices
from backend.task.dataset import item_from_record
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.members import build_members, parse_member_arg
from backend.providers.gemini import GeminiProvider
from backend.providers.openai_compat import OpenAIProvider
from backend.task.spec import load_spec
from tests.backend.providers.replay import ReplayServer

SPEC = load_spec("factual-consistency")
PRICES = load_prices(Path(__file__).resolve().parents[3] / "examples" / "prices.example.yaml")


@pytest.fixture()
def replay(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recorded-0123456789abcdefDONOTLEAK")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaTestRecorded0123456789abcdefDONOTLEAK")
    with ReplayServer() as server:
        yield server


def _one_member_run(provider, kind: str):
    entry = parse_member_arg(f"{kind}:{provider.model}")
    members = build_members([entry], SPEC, provider_factory=lambda e: provider)[:1]
    item = item_from_record({"id": "a", "grounding": "The bridge closed.", "generated_text": "It closed.",
                             "label": 1}, SPEC)
    engine = Engine(SPEC, members, cache=None, config=EngineConfig(max_attempts=1, quorum=_any_quorum()))
    (result,) = list(engine.score([item]))
    accountant = Accountant(PRICES)
    accountant.add(result)
    return result, accountant.to_dict()


def _any_quorum():
    from backend.scoring.ensemble import Quorum

    return Quorum(min_share=0.0, every_model=False)


def test_openai_usage_reaches_the_accounting(replay: ReplayServer) -> None:
    replay.queue("openai/top_logprobs_binary")
    result, usage = _one_member_run(OpenAIProvider("gpt-4o-mini", base_url=f"{replay.url}/v1"), "openai")
    assert result.members[0].usage["prompt_tokens"] == 187
    (row,) = usage["members"]
    assert (row["calls"], row["input_tokens"], row["output_tokens"]) == (1, 187, 2)
    price = PRICES.find("openai", "gpt-4o-mini")
    assert row["cost_usd"] == pytest.approx((187 * price.input_per_million + 2 * price.output_per_million) / 1e6)
    assert usage["cost_usd_total"] == row["cost_usd"] and usage["prices_as_of"] == PRICES.as_of


def test_gemini_usage_metadata_reaches_the_accounting(replay: ReplayServer) -> None:
    replay.queue("gemini/top_logprobs_binary")
    result, usage = _one_member_run(GeminiProvider("gemini-2.0-flash", base_url=replay.url), "gemini")
    (row,) = usage["members"]
    assert (row["calls"], row["input_tokens"], row["output_tokens"]) == (1, 164, 2)
    price = PRICES.find("gemini", "gemini-2.0-flash")
    assert row["cost_per_10k_labels_usd"] == pytest.approx(
        (164 * price.input_per_million + 2 * price.output_per_million) / 1e6 * 10_000, abs=1e-4)
