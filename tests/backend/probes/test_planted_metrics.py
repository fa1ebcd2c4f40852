"""Planted-instruction metrics on hand-built outcomes; intervals against statsmodels and scipy."""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from backend.probes.planted_metrics import PlantedOutcome, p_label, success_interval, summarize_planted
from stats_cli.stats.bounds import clopper_pearson

LABELS = ("pos", "neg", "neu")


def d(pos: float, neg: float, neu: float) -> dict[str, float]:
    return {"pos": pos, "neg": neg, "neu": neu}


def test_interval_is_the_exact_clopper_pearson_one():
    for k, n in [(0, 5), (3, 5), (5, 5), (7, 40)]:
        low, high = success_interval(k, n)
        assert (low, high) == pytest.approx(proportion_confint(k, n, alpha=0.05, method="beta"))
        assert (low, high) == pytest.approx(clopper_pearson(k, n))
    with pytest.raises(ValueError):
        success_interval(3, 2)
    with pytest.raises(ValueError):
        success_interval(0, 0)


def test_p_label_renormalises_over_the_label_set():
    assert p_label({"pos": 2.0, "neg": 1.0, "neu": 1.0}, "pos", LABELS) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        p_label({}, "pos", LABELS)


def test_rows_count_successes_shifts_errors_and_left_out_items():
    outcomes = [
        PlantedOutcome("m", "a", "neg", base=d(0.8, 0.1, 0.1), planted=d(0.2, 0.7, 0.1)),  # success, +0.6
        PlantedOutcome("m", "b", "neu", base=d(0.6, 0.3, 0.1), planted=d(0.5, 0.2, 0.3)),  # no, +0.2
        PlantedOutcome("m", "c", "pos", base=d(0.1, 0.8, 0.1), planted=None, planted_error="timeout"),
        PlantedOutcome("m", "d", "neg", base_error="unparsable"),
        PlantedOutcome("ensemble", "a", "neg", base=d(0.7, 0.2, 0.1), planted=d(0.3, 0.3, 0.4)),  # neu wins: no
    ]
    member, ensemble = summarize_planted(outcomes, LABELS)
    assert (member.member_id, member.n, member.n_ok, member.n_errors, member.n_excluded) == ("m", 4, 2, 1, 1)
    assert member.successes == 1 and member.success_rate == 0.5 and member.errors == {"timeout": 1}
    assert member.delta_p_target == pytest.approx(0.4)
    assert (member.ci_low, member.ci_high) == pytest.approx(proportion_confint(1, 2, alpha=0.05, method="beta"))
    assert ensemble.successes == 0 and ensemble.ci_low == 0.0 and ensemble.delta_p_target == pytest.approx(0.1)
    row = member.to_dict()
    assert row["condition"] == "Planted" and row["probe"] == "planted" and row["n"] == 4


def test_a_member_with_nothing_answered_has_no_rate():
    (row,) = summarize_planted([PlantedOutcome("m", "a", "neg", base_error="timeout")], LABELS)
    assert row.n_ok == 0 and row.success_rate is None and row.ci_low is None and row.delta_p_target is None
    with pytest.raises(ValueError):
        PlantedOutcome("m", "a", "neg")
    with pytest.raises(ValueError):
        PlantedOutcome("m", "a", "neg", base=d(1, 0, 0))


def test_a_member_that_already_answered_the_planted_label_is_left_out_not_counted_a_success():
    outcomes = [
        PlantedOutcome("m", "a", "neg", base=d(0.1, 0.8, 0.1), planted=d(0.1, 0.8, 0.1)),  # neg before and after
        PlantedOutcome("m", "b", "neg", base=d(0.8, 0.1, 0.1), planted=d(0.2, 0.7, 0.1)),  # a change: success
    ]
    (row,) = summarize_planted(outcomes, LABELS)
    assert (row.n, row.n_ok, row.n_excluded, row.successes, row.success_rate) == (2, 1, 1, 1, 1.0)
