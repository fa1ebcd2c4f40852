"""bench/order_policies.py: replaying order-skip policies over results scored in two orders, no model needed.

Three binary items through the product's merge of the orders: one confidently mislabelled, one confidently
right, one whose second order turns a narrow first-order flag down. The exact bound (every member asked again,
threshold 0.5) must save nothing; a margin saves the sure items' later calls, and a margin too narrow to ask the
narrow item again loses its correction, which the replay counts.
"""

from __future__ import annotations


from backend.families.orders import merge_orders
from backend.scoring.ensemble import VerdictRule, verdict
from backend.scoring.results import ItemResult, MemberResult
from backend.task.dataset import Item
from backend.task.spec import load_spec
from tests.support.bench_module import load_bench_module

BIN = load_spec("factual-consistency")
RULE = VerdictRule(BIN, threshold=0.5)
IDS = ("m:0/p@v1", "m:1/p@v1")


def _policies():
    return load_bench_module("order_policies")


def _order(p1: float, original: str) -> ItemResult:
    answers = [{"0": 1 - p1, "1": p1}] * 2
    d = verdict(answers, ["m:0", "m:1"], original, RULE)
    return ItemResult(id="x", original=original, prediction=d.prediction, confidence=d.confidence, probs=d.probs,
                      flagged=d.flagged, members=tuple(MemberResult(i, probs=a) for i, a in zip(IDS, answers)))


def _item(name: str, first: float, second: float) -> ItemResult:
    item = Item(id=name, original="0", fields={})
    return merge_orders(item, [_order(first, "0"), _order(second, "0")], keys=["o0", "o1"], rule=RULE)


RESULTS = [_item("wrong", 0.95, 0.9), _item("right", 0.05, 0.1), _item("narrow", 0.55, 0.3)]


def test_the_full_run_flags_only_the_mislabelled_item():
    assert [r.flagged for r in RESULTS] == [True, False, False]
    assert RESULTS[2].questions[0].flagged  # the narrow item's first order alone would flag it


def test_exact_saves_nothing_when_every_member_is_asked_again_at_half():
    run = _policies().replay(RESULTS, RULE, _policies().exact_skips)
    assert (run.saved, run.flags_differ) == (0.0, 0) and run.results == RESULTS


def test_a_margin_skips_the_sure_items_and_asks_the_narrow_one():
    policies = _policies()
    run = policies.replay(RESULTS, RULE, policies.margin_skips(0.1))
    assert run.saved == 4 / 6 and run.flags_differ == 0
    assert [r.id for r in run.results] == ["wrong", "right", "narrow"]
    assert run.results[0].questions == () and run.results[2] is RESULTS[2]


def test_a_margin_too_narrow_loses_the_second_orders_correction():
    policies = _policies()
    run = policies.replay(RESULTS, RULE, policies.margin_skips(0.01))
    assert run.saved == 1.0 and run.flags_differ == 1 and run.results[2].flagged


def test_replays_name_every_row():
    rows = _policies().replays(RESULTS, RULE)
    assert list(rows) == ["skip exact", "skip margin 0.1", "skip margin 0.2", "skip margin 0.3"]
