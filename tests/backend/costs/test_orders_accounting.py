"""Per-member calls of a run whose questions are asked in several option orders: each order is a call.

Why: the merged member row of an item is the average over its orders; counted alone it showed half the
calls the run made (a person saw ``llm_calls 32`` above a per-member total of 16).
"""

from __future__ import annotations

import pytest

from backend.costs.accounting import Accountant, answered_calls
from backend.scoring.cache import CallCache
from backend.scoring.members import MemberSpec, build_members
from backend.scoring.question_engine import make_engine
from backend.task.dataset import Item
from backend.task.generic import generic_spec
from tests.support.position_judge import LetterBiasedJudge

LABELS = ["sport", "politics", "science"]
ITEMS = [Item(id=f"i{k}", original=LABELS[k % 3], fields={"text": text}) for k, text in enumerate(
    ["The striker scored twice.", "The senate passed the bill.", "The telescope found water."])]


@pytest.mark.parametrize("n_orders", [1, 2, 3])
def test_each_order_of_each_member_is_counted_once_and_a_rerun_counts_cache_hits(tmp_path, n_orders):
    spec = generic_spec(labels=LABELS, fields=["text"], option_orders=n_orders)
    judge = LetterBiasedJudge(share=0.3)
    members = build_members([MemberSpec(provider=judge.name, model=judge.model, prompts=("generic-question",
                                                                                      "generic-annotator"))],
                            spec, provider_factory=lambda e: judge)
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    for run in ("fresh", "cached"):
        engine = make_engine(spec, members, cache=cache)
        results = list(engine.score(ITEMS))
        accountant = Accountant(member_ids=[m.id for m in members])
        for result in results:
            accountant.add(result)
            assert len(answered_calls(result)) == n_orders * len(members)
        usage = accountant.to_dict()
        rows = {r["member"]: r for r in usage["members"]}
        if run == "fresh":
            assert usage["calls"] == engine.stats.llm_calls == n_orders * len(ITEMS) * len(members)
            assert all(r["calls"] == n_orders * len(ITEMS) and r["cached"] == 0 for r in rows.values())
        else:
            assert usage["calls"] == 0
            assert all(r["cached"] == n_orders * len(ITEMS) for r in rows.values())
    cache.close()


def test_a_worker_summary_read_back_from_stored_results_counts_the_same_calls(tmp_path):
    """The ledger stores each order's answers inside the result (JSON round trip): the worker's summary,
    rebuilt from stored results, counts the calls the engine made."""
    from backend.scoring.results import ItemResult
    from backend.worker.project_audit import stats_from_results

    spec = generic_spec(labels=LABELS, fields=["text"], option_orders=2)
    judge = LetterBiasedJudge(share=0.3)
    members = build_members([MemberSpec(provider=judge.name, model=judge.model, prompts=("generic-question",))],
                            spec, provider_factory=lambda e: judge)
    engine = make_engine(spec, members, cache=None)
    stored = [ItemResult.from_json(r.to_json()) for r in engine.score(ITEMS)]
    assert stats_from_results(stored).llm_calls == engine.stats.llm_calls == 2 * len(ITEMS)
