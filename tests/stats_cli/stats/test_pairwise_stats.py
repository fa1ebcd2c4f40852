"""Preference-pair figures on cases small enough to count by hand, intervals against scipy."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from backend.scoring.results import ItemResult, MemberResult
from backend.families.orders import position_flips
from stats_cli.stats.pairwise_stats import Share, pair_agreement, position_bias, reversals


def test_agreement_with_and_without_ties_by_hand():
    answers = {
        "1": {"A": "left", "B": "left"},  # agree, no tie
        "2": {"A": "left", "B": "right"},  # disagree, no tie
        "3": {"A": "tie", "B": "tie"},  # agree, a tie pair
        "4": {"A": "tie", "B": "right"},  # disagree, a tie pair
        "5": {"A": "right", "B": None},  # one answer: left out
    }
    result = pair_agreement(answers)
    assert result.items == 4 and result.tie_pairs == 2
    assert (result.with_ties.k, result.with_ties.n) == (2, 4)
    assert (result.without_ties.k, result.without_ties.n) == (1, 2)
    ref = binomtest(2, 4).proportion_ci(method="exact")
    assert result.with_ties.interval == pytest.approx((ref.low, ref.high))


def test_three_raters_count_every_pair_within_an_item():
    # left, left, tie: pairs (l,l) agree; (l,t) twice are tie pairs that disagree
    result = pair_agreement({"1": {"A": "left", "B": "left", "C": "tie"}})
    assert (result.with_ties.k, result.with_ties.n) == (1, 3)
    assert (result.without_ties.k, result.without_ties.n) == (1, 1) and result.tie_pairs == 2


def test_position_bias_from_the_per_order_verdicts():
    def order(key: str, judge_a: str, judge_b: str) -> ItemResult:
        members = tuple(MemberResult(m, probs={top: 0.8, ("right" if top == "left" else "left"): 0.2},
                                     method="logprobs") for m, top in (("a", judge_a), ("b", judge_b)))
        return ItemResult(id=key, original="left", prediction=None, confidence=None, probs=None, flagged=False,
                          members=members)

    items = []
    # judge a prefers whichever response is shown first: "left" in order ab, "right" in ba (answers mapped back
    # to labels), so it flips on every item; judge b changes its answer with the order on 2 of the 3 items.
    for i, b_tops in enumerate((("left", "right"), ("right", "left"), ("left", "left"))):
        questions = (order("ab", "left", b_tops[0]), order("ba", "right", b_tops[1]))
        items.append(ItemResult(id=str(i), original="left", prediction="left", confidence=0.6, probs=None,
                                flagged=False, questions=questions))
    flips = [position_flips(it, ("left", "right")) for it in items]
    bias = position_bias(flips)
    assert (bias["a"].k, bias["a"].n) == (3, 3)
    assert (bias["b"].k, bias["b"].n) == (2, 3)
    assert bias["a"].interval[0] == pytest.approx(binomtest(3, 3).proportion_ci(method="exact").low)


def test_reversals_count_sides_turned_round_and_ties_apart():
    pairs = [("left", "right"), ("right", "left"), ("left", "left"), ("right", "right"), ("left", "tie"),
             ("tie", "right"), ("tie", "tie"), (None, "left"), ("left", None), ("bogus", "left")]
    result = reversals(pairs)
    assert result.items == 7
    assert (result.reversed.k, result.reversed.n) == (2, 5)  # originals that took a side: 5; turned: 2
    assert result.to_tie == 1 and result.from_tie == 1
    assert result.to_json()["reversed"]["value"] == pytest.approx(0.4)


def test_empty_shares_have_no_value_rather_than_zero():
    share = Share(0, 0)
    assert share.value is None and share.interval == (None, None)
    assert pair_agreement({}).with_ties.value is None
    with pytest.raises(ValueError):
        Share(3, 2)


def test_agreement_is_per_item_then_averaged_as_mt_bench_defines_it():
    # item 1: three raters all agree (3 agreeing pairs of 3); item 2: two raters disagree (0 of 1). Pooling the
    # pairs says 3/4 = 0.75, a three-rater item weighing three times; MT-Bench's per-question mean is 0.5.
    result = pair_agreement({"1": {"A": "left", "B": "left", "C": "left"}, "2": {"A": "left", "B": "right"}})
    assert result.with_ties.value == pytest.approx(0.5)
    assert result.without_ties.value == pytest.approx(0.5)
    assert result.with_ties.items == 2 and (result.with_ties.k, result.with_ties.n) == (3, 4)
    low, high = result.with_ties.interval
    assert low is not None and low <= 0.5 <= high


def test_first_position_rate_says_which_side_a_judge_prefers():
    # judge a takes the response shown first every time (left in order ab, right in ba): 6 of 6 answers; judge
    # b says left whatever the order, so the first-shown one half the time; a tie takes no side and is left out.
    from stats_cli.stats.pairwise_stats import first_position

    per_item = [{"ab": {"a": "left", "b": "left"}, "ba": {"a": "right", "b": "left"}} for _ in range(3)]
    per_item.append({"ab": {"a": "tie", "b": None}, "ba": {"a": "right"}})
    rate = first_position(per_item)
    assert (rate["a"].k, rate["a"].n) == (7, 7)
    assert (rate["b"].k, rate["b"].n) == (3, 6) and rate["b"].value == pytest.approx(0.5)
