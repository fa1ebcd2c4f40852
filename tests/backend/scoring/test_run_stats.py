"""One tally: the engine's counts, the ledger summary's and the report's are the same function's.

The integration test scores through the real engine with the embedded model plus a member whose server
is a closed port (a real connection refusal, no mock), so bad input, member errors, insufficient items
and cache hits all occur, and checks the engine's counts against the tally of the yielded and of the
stored results.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from backend.scoring.cache import CallCache
from backend.task.dataset import read_items
from backend.scoring.engine import Engine, EngineConfig
from backend.ledger import Ledger
from backend.scoring.members import build_members, default_members, parse_member_arg
from backend.scoring.results import ErrorInfo, ItemResult, MemberResult
from backend.scoring.run_stats import RESULT_KEYS, EngineStats, tally
from backend.task.spec import load_spec
from backend.worker.project_audit import stats_from_results

FC = load_spec("factual-consistency")


def _result(rid: str, *, flagged=False, error=None, members=(), **kw) -> ItemResult:
    scored = error is None
    return ItemResult(id=rid, original="0", prediction="1" if scored else None, confidence=0.9 if scored else None,
                      probs={"0": 0.1, "1": 0.9} if scored else None, flagged=flagged, error=error,
                      members=tuple(members), **kw)


def test_remove_result_undoes_add_result_exactly():
    timeout = MemberResult("a:m/p@v1", error=ErrorInfo("timeout", True))
    ok = MemberResult("b:m/p@v1", probs={"0": 0.1, "1": 0.9}, cached=True)
    earlier = [_result("x", members=(timeout, ok)), _result("y", error="bad_label")]
    stopped = _result("z", flagged=True, members=(timeout, ok), suspicious_text=True, insufficient=True,
                      stopped_early=True)
    stats = tally(earlier)
    before = stats.to_dict()
    stats.add_result(stopped)
    assert stats.to_dict() != before
    stats.remove_result(stopped)
    assert stats.to_dict() == before  # member_errors keeps x's timeout (one left), not popped
    assert stats.member_errors == {"a:m/p@v1": Counter({"timeout": 1})}
    stats.remove_result(earlier[0])
    assert stats.member_errors == {} and stats.errors == Counter({"bad_label": 1})


def test_item_error_counts_its_reason_only_when_no_member_ran():
    down = MemberResult("a:m/p@v1", error=ErrorInfo("connection", True))
    no_answer = _result("n", error=ErrorInfo("no_member_answered", True, "connection x1"), members=(down,))
    counts = tally([no_answer, _result("b", error="invalid_json")])
    assert counts.errors == Counter({"connection": 1, "invalid_json": 1})
    assert (counts.items, counts.scored) == (2, 0)


@pytest.mark.llm
def test_engine_counts_equal_the_tally_of_yielded_and_stored_results(smollm2_path, tmp_path):
    path = tmp_path / "items.jsonl"
    rows = [{"id": f"i{k}", "grounding": f"The sky is {c}.", "generated_text": "The sky is blue.", "label": k % 2}
            for k, c in enumerate(["blue", "green", "blue"])]
    lines = [json.dumps(r) for r in rows]
    lines.insert(1, "{oops")  # a bad record: an item error with a line number
    lines.append(json.dumps({**rows[0], "id": "twin"}))  # an identical item: its prompts are in-run cache hits
    path.write_text("\n".join(lines) + "\n")
    closed = build_members([parse_member_arg("openai:smol@http://127.0.0.1:9/v1")], FC)
    members = default_members(FC) + closed
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    config = EngineConfig(max_attempts=1, concurrency=2)
    try:
        for run in ("fresh", "cached"):
            engine = Engine(FC, members, cache=cache, config=config)
            results = list(engine.score(read_items(path, FC)))
            ledger.record_many(run, "v1", results)
            stored = ledger.results(run, model_version="v1")
            counted = engine.stats.to_dict()
            for source in (results, stored):
                tallied = tally(source).to_dict()
                assert {k: counted[k] for k in RESULT_KEYS} == {k: tallied[k] for k in RESULT_KEYS}
            ledger_summary = stats_from_results(stored).to_dict()
            assert {k: ledger_summary[k] for k in RESULT_KEYS} == {k: counted[k] for k in RESULT_KEYS}
            # the file really exercised every count: bad input, member errors, quorum misses, cache hits
            assert counted["items"] == 5 and counted["errors"]["invalid_json"] == 1
            assert set(counted["member_errors"]) == {m.id for m in closed}
            assert counted["insufficient"] == counted["scored"] == 4  # the closed model never answers
            assert counted["cache_hits"] >= (len(members) - len(closed)) * (1 if run == "fresh" else 4)
    finally:
        cache.close()


def test_an_empty_tally_is_all_zero():
    assert tally([]).to_dict() == EngineStats().to_dict()
