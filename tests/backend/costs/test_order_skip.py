"""The order-skip bound: an item it calls settled gets the same flag from every answer of its second order.

Checked exhaustively on grids over the simplex (2 and 3 classes, failures included, members asked again or
not) through the product's own merge of the orders (:func:`backend.families.orders.merge_orders`), and with
hypothesis on ordinal answers; plus the cases it must leave open (the default: every member asked again).
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from backend.families.orders import merge_orders
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.ensemble import Quorum, VerdictRule, normalize, verdict
from backend.scoring.order_skip import flag_settled, later_weight
from backend.scoring.results import ItemResult, MemberResult
from backend.task.dataset import Item
from backend.task.spec import load_spec

BIN = load_spec("factual-consistency")
LIK = load_spec("likert")
ABC = spec_from_label_config('<View><Text name="text" value="$text"/><Choices name="label" toName="text" choice="single">'
                             '<Choice value="a"/><Choice value="b"/><Choice value="c"/></Choices></View>', family="nominal")
MODELS = ("m:0", "m:1")


def _order(answers, ids, original) -> ItemResult:
    members = tuple(MemberResult(i, probs=a) for a, i in zip(answers, ids))
    return ItemResult(id="x", original=original, prediction=None, confidence=None, probs=None, flagged=False,
                      members=members)


def _final_flag(first, second, asked, original, rule) -> bool:
    """The flag of the product's merge of both orders (a member not asked again is absent from the second)."""
    ids = [f"m:{i}/p@v1" for i in range(len(first))]  # member i's model is "m:i"
    again = [(b, i) for b, i, ask in zip(second, ids, asked) if ask]
    answers = [_order(first, ids, original), _order([b for b, _ in again], [i for _, i in again], original)]
    merged = merge_orders(Item(id="x", original=original, fields={}), answers, keys=["o0", "o1"], rule=rule)
    return merged.flagged


def _simplex(labels, step):
    n = round(1 / step)
    points = [c for c in itertools.product(range(n + 1), repeat=len(labels)) if sum(c) == n]
    return [None, *({lab: k / n for lab, k in zip(labels, c)} for c in points)]


def _exhaust(spec, thresholds, first_step, second_step) -> tuple[int, int]:
    firsts, seconds = _simplex(spec.labels, first_step), _simplex(spec.labels, second_step)
    settled = open_ = 0
    for first in itertools.product(firsts, repeat=2):
        for asked in ((True, True), (True, False), (False, True)):
            for threshold in thresholds:
                for original in spec.labels:
                    rule = VerdictRule(spec, threshold=threshold, quorum=Quorum(min_share=0.5, every_model=False))
                    bound = flag_settled(list(first), list(MODELS), list(asked), original, rule)
                    if bound is None:
                        open_ += 1
                        continue
                    settled += 1
                    now = verdict(list(first), list(MODELS), original, rule)
                    assert now is not None and now.flagged == bound, (first, asked, threshold, original)
                    for second in itertools.product(seconds, repeat=2):
                        assert _final_flag(first, second, asked, original, rule) == bound, \
                            (first, second, asked, threshold, original)
    return settled, open_


def test_two_classes_every_second_answer_keeps_a_settled_flag():
    settled, open_ = _exhaust(BIN, (0.5, 0.6, 0.75, 0.9), 0.25, 0.25)
    assert settled > 0 and open_ > 0  # the bound settles some items and leaves others open


def test_three_classes_every_second_answer_keeps_a_settled_flag():
    settled, open_ = _exhaust(ABC, (0.2, 0.5, 0.7), 0.5, 0.5)
    assert settled > 0 and open_ > 0


def test_every_member_asked_again_at_threshold_half_never_settles():
    """W = 1/2: the second order alone lifts any class with first-order mass above 0.5 (or keeps the original)."""
    rule = VerdictRule(BIN, threshold=0.5)
    inside = [p for p in _simplex(BIN.labels, 0.125)[1:] if min(p.values()) > 0]  # a judge's logprobs are never 0
    for first in itertools.product(inside, repeat=2):
        for original in BIN.labels:
            assert flag_settled(list(first), list(MODELS), [True, True], original, rule) is None
    sure = [{"0": 0.99, "1": 0.01}, {"0": 0.99, "1": 0.01}]  # both members all but certain of the label
    flips = {_final_flag(sure, [b, b], [True, True], "0", rule) for b in ({"0": 1.0, "1": 0.0}, {"0": 0.0, "1": 1.0})}
    assert flips == {False, True}  # a second order all on "1" flags it: skipping would be wrong


def test_a_member_not_asked_again_lets_a_sure_flag_settle():
    rule = VerdictRule(BIN, threshold=0.5)
    first = [{"0": 0.0, "1": 1.0}] * 3
    models = ["m:0", "m:1", "m:2"]
    assert later_weight(first, [True, True, False]) == 1 / 3
    assert flag_settled(first, models, [True, True, False], "0", rule) is True
    assert flag_settled(first, models, [True, True, True], "0", rule) is None


def test_above_half_an_item_sure_of_its_label_settles_unflagged():
    rule = VerdictRule(ABC, threshold=0.75)  # the second order lifts "b" (or "c") to at most 0.1 / 2 + 0.5
    first = [{"a": 0.8, "b": 0.2, "c": 0.0}, {"a": 0.8, "b": 0.0, "c": 0.2}]
    assert flag_settled(first, list(MODELS), [True, True], "a", rule) is False
    assert flag_settled(first, list(MODELS), [True, True], "a", VerdictRule(ABC, threshold=0.5)) is None


def test_weight_counts_failed_members_asked_again_as_wholly_unknown():
    assert later_weight([{"0": 1.0}, None], [True, True]) == (0.5 + 1) / 2
    assert later_weight([{"0": 1.0}, {"0": 1.0}], [True, True], orders=3) == 2 / 3
    assert later_weight([{"0": 1.0}, None], [True, False]) == 0.5


def test_below_quorum_the_item_stays_open():
    rule = VerdictRule(BIN, threshold=0.9, quorum=Quorum(min_share=1.0, every_model=True))
    assert flag_settled([{"0": 1.0, "1": 0.0}, None], list(MODELS), [False, True], "0", rule) is None


def _dist(labels):
    return st.one_of(
        st.none(),
        st.sampled_from(labels).map(lambda lab: {x: float(x == lab) for x in labels}),
        st.lists(st.floats(0.0, 1.0), min_size=len(labels), max_size=len(labels))
        .filter(lambda v: sum(v) > 1e-6).map(lambda v: normalize(dict(zip(labels, v)), labels)),
    )


@settings(max_examples=150, deadline=None)
@given(data=st.data(), threshold=st.sampled_from([0.2, 0.5, 0.7, 0.9]), n=st.integers(1, 4))
def test_random_ordinal_answers_keep_a_settled_flag(data, threshold, n):
    first = data.draw(st.lists(_dist(LIK.labels), min_size=n, max_size=n))
    asked = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    original = data.draw(st.sampled_from(LIK.labels))
    rule = VerdictRule(LIK, threshold=threshold, quorum=Quorum(min_share=0.5, every_model=False))
    models = [f"m:{i}" for i in range(n)]
    bound = flag_settled(first, models, asked, original, rule)
    if bound is None:
        return
    for _ in range(10):
        second = data.draw(st.lists(_dist(LIK.labels), min_size=n, max_size=n))
        assert _final_flag(first, second, asked, original, rule) == bound
