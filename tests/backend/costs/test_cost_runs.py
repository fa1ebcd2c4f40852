"""Accounting, dry run and --max-cost on real runs: the in-process GGUF model and a real llama_cpp.server.

Shapes and bookkeeping only (calls, tokens, costs, resumption), never the tiny model's verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from backend.scoring.cache import CallCache
from backend.commands.score import run_scoring
from backend.costs.budget import Budget
from backend.costs.prices import load_prices
from backend.scoring.engine import EngineConfig
from backend.scoring.members import default_members, members_from_args
from backend.scoring.results import ItemResult
from backend.scoring.run_stats import RESULT_KEYS, tally
from backend.task.spec import load_spec

pytestmark = pytest.mark.llm

SAMPLE = Path(__file__).resolve().parents[3] / "backend" / "data" / "sample_factual_consistency.jsonl"
SPEC = load_spec("factual-consistency")


def _dataset(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(SAMPLE.read_text().splitlines()[:n]) + "\n")
    return path


def _prices(tmp_path: Path, provider: str, model: str, per_million: float) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(f"as_of: '2026-12-01'\nprices:\n  - {{provider: {provider}, model: {model}, "
                    f"input_per_million: {per_million}, output_per_million: {2 * per_million}}}\n")
    return path


def _run(path, members, cache, **kwargs):
    return run_scoring(path, SPEC, members, config=EngineConfig(concurrency=2), cache=cache, out=kwargs.pop("out", None),
                       summary_json=None, top=3, progress=False, console=Console(file=open("/dev/null", "w")), **kwargs)


def test_local_dry_run_predicts_calls_and_tokens_of_the_run(tmp_path, smollm2_path):
    data = _dataset(tmp_path, 3)
    prices = load_prices(_prices(tmp_path, "local", "smollm2", 1000.0))
    members = default_members(SPEC)
    cache = CallCache(f"sqlite:///{tmp_path / 'c.sqlite'}")
    try:
        estimate = _run(data, members, cache, prices=prices, dry_run=True)["dry_run"]
        assert cache.count() == 0  # the dry run called nothing
        summary = _run(data, members, cache, prices=prices)
        usage = summary["usage"]
        assert estimate["calls"] == summary["llm_calls"] == usage["calls"] == 3 * len(members)
        # the GGUF's own tokenizer: the estimate is the count the model reports, exactly
        assert all(r["tokenizer"].startswith("the model's tokenizer") for r in estimate["members"])
        assert estimate["input_tokens"] == usage["input_tokens"] > 0 and usage["output_tokens"] == 0
        for row in usage["members"]:
            assert row["calls"] == 3 and row["latency_n"] == 3 and row["latency_p95_s"] >= row["latency_median_s"] > 0
            assert row["cost_usd"] == pytest.approx(row["input_tokens"] * 1000.0 / 1e6)
            assert row["cost_per_10k_labels_usd"] == pytest.approx(row["cost_usd"] / 3 * 10_000)
        assert summary["cost_usd_total"] == pytest.approx(sum(r["cost_usd"] for r in usage["members"]))
        again = _run(data, members, cache, prices=prices, dry_run=True)["dry_run"]
        assert again["calls"] == 0 and again["cached_calls"] == 3 * len(members) and again["cost_usd"] == 0.0
    finally:
        cache.close()


def test_llama_server_usage_is_counted_from_the_servers_usage_field(tmp_path, llama_server):
    data = _dataset(tmp_path, 2)
    members = members_from_args([f"openai:{llama_server.model}@{llama_server.base_url}"], SPEC)
    prices = load_prices(_prices(tmp_path, "openai", llama_server.model, 2.0))
    out = tmp_path / "out.jsonl"
    summary = _run(data, members, None, prices=prices, out=out)
    answered = [m for line in out.read_text().splitlines() for m in json.loads(line)["members"] if m["error"] is None]
    assert answered, "the server answered no call"
    reported_in = sum(m["usage"]["prompt_tokens"] for m in answered)
    reported_out = sum(m["usage"]["completion_tokens"] for m in answered)
    usage = summary["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (reported_in, reported_out)
    assert 0 < reported_out <= 2 * len(answered)  # max_tokens=2 per call
    assert summary["cost_usd_total"] == pytest.approx((reported_in * 2.0 + reported_out * 4.0) / 1e6)


def test_max_cost_stops_cleanly_and_resumes_without_calling_twice(tmp_path, smollm2_path):
    data = _dataset(tmp_path, 4)
    prices = load_prices(_prices(tmp_path, "local", "smollm2", 1000.0))  # ~0.1-0.3 USD a call
    members = default_members(SPEC)
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    cache = CallCache(url)
    try:
        full = _run(data, members, cache, prices=prices, dry_run=True)["dry_run"]
        cap = full["cost_usd"] / 2
        first = _run(data, members, cache, prices=prices, budget=Budget(cap, prices), out=tmp_path / "a.jsonl")
        stopped = first["stopped"]
        assert stopped and stopped["reason"] == "max_cost" and 0 < stopped["spent_usd"] <= cap
        assert 0 <= stopped["items_done"] < 4 and first["items"] == stopped["items_done"]
        written = tally(ItemResult.from_json(json.loads(line)) for line in (tmp_path / "a.jsonl").read_text().splitlines())
        assert {k: first[k] for k in RESULT_KEYS} == {k: written.to_dict()[k] for k in RESULT_KEYS}
        made_first = cache.count()
        assert 0 < made_first < full["calls"]
        second = _run(data, members, cache, prices=prices, budget=Budget(10 * full["cost_usd"], prices))
        assert second["stopped"] is None and second["items"] == 4
        # every call of the first run came from the cache: together exactly the calls a full run makes
        assert second["llm_calls"] == full["calls"] - made_first and second["cache_hits"] == made_first
        assert cache.count() == full["calls"]
    finally:
        cache.close()
