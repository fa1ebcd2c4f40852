"""Gullibility metrics against hand-computed values."""

from __future__ import annotations

import pytest

from backend.probes.construct import Condition
from backend.probes.metrics import Outcome, absolute_error, p_positive, predicted_label, summarize
from backend.task.spec import load_spec

RELEVANCE = load_spec("relevance")
BASE = Condition("RandP", "none", 100)
STUFFED = Condition("RandP", "Q", 100)


def dist(*values: float) -> dict[str, float]:
    return {str(i): v for i, v in enumerate(values)}


def test_predicted_label_is_the_argmax_with_ties_to_the_lower_class():
    assert predicted_label(dist(0.1, 0.2, 0.3, 0.4), RELEVANCE.labels) == "3"
    assert predicted_label(dist(0.4, 0.4, 0.1, 0.1), RELEVANCE.labels) == "0"
    assert predicted_label(dist(0.1, 0.4, 0.4, 0.1), RELEVANCE.labels) == "1"
    assert predicted_label({}, RELEVANCE.labels) == "0"


def test_absolute_error_counts_classes_from_the_negative_label():
    assert [absolute_error(lab, RELEVANCE) for lab in RELEVANCE.labels] == [0, 1, 2, 3]
    likert = load_spec("likert")
    assert absolute_error("4", likert) == 3
    assert absolute_error("1", likert) == 0


def test_p_positive_is_the_mass_off_the_negative_class_renormalised():
    assert p_positive(dist(0.7, 0.1, 0.1, 0.1), RELEVANCE) == pytest.approx(0.3)
    assert p_positive(dist(1.0, 1.0, 0.0, 0.0), RELEVANCE) == pytest.approx(0.5)
    assert p_positive({"0": 0.3, "1": 0.7}, load_spec("factual-consistency")) == pytest.approx(0.7)
    with pytest.raises(ValueError):
        p_positive(dist(0, 0, 0, 0), RELEVANCE)


def test_summarize_matches_hand_computed_mae_rates_and_paired_deltas():
    outcomes = [
        Outcome("m", BASE, "a", probs=dist(0.7, 0.1, 0.1, 0.1)),   # pred 0, err 0, p+ .3
        Outcome("m", BASE, "b", probs=dist(0.2, 0.5, 0.2, 0.1)),   # pred 1, err 1, p+ .8
        Outcome("m", BASE, "c", error="timeout"),
        Outcome("m", STUFFED, "a", probs=dist(0.1, 0.1, 0.1, 0.7)),  # pred 3, err 3, p+ .9
        Outcome("m", STUFFED, "b", probs=dist(0.4, 0.4, 0.1, 0.1)),  # tie -> 0, err 0, p+ .6
        Outcome("m", STUFFED, "c", probs=dist(0.25, 0.25, 0.25, 0.25)),  # tie -> 0, p+ .75
    ]
    base, stuffed = summarize(outcomes, RELEVANCE)
    assert (base.condition, base.n, base.n_ok, base.n_errors, base.errors) == ("RandP-100", 3, 2, 1, {"timeout": 1})
    assert base.mae == pytest.approx(0.5)
    assert base.share_positive == pytest.approx(0.5)
    assert base.mean_p_positive == pytest.approx(0.55)
    assert base.delta_mae is None and base.n_paired == 0

    assert (stuffed.condition, stuffed.n_ok, stuffed.n_errors) == ("RandP-100+Q", 3, 0)
    assert stuffed.mae == pytest.approx(1.0)
    assert stuffed.share_positive == pytest.approx(1 / 3)
    assert stuffed.mean_p_positive == pytest.approx(0.75)
    assert stuffed.n_paired == 2  # item c errored at baseline
    assert stuffed.delta_mae == pytest.approx(1.0)           # ((3-0) + (0-1)) / 2
    assert stuffed.delta_share_positive == pytest.approx(0.0)  # ((1-0) + (0-1)) / 2
    assert stuffed.delta_p_positive == pytest.approx(0.2)      # ((.9-.3) + (.6-.8)) / 2
    assert stuffed.delimit is True and stuffed.length == 100 and stuffed.injection == "Q"


def test_summarize_keeps_members_apart_counts_massless_answers_as_errors_and_flags_delimit():
    outcomes = [
        Outcome("m1", STUFFED, "a", probs=dist(0, 0, 0, 1)),
        Outcome("m2", STUFFED, "a", probs=dist(0, 0, 0, 0)),
        Outcome("m2", STUFFED, "b", error="no_class_token"),
    ]
    rows = {r.member_id: r for r in summarize(outcomes, RELEVANCE, delimit=False)}
    assert rows["m1"].mae == 3 and rows["m1"].share_positive == 1 and rows["m1"].delta_mae is None
    assert rows["m2"].n_ok == 0 and rows["m2"].mae is None and rows["m2"].mean_p_positive is None
    assert rows["m2"].errors == {"no_class_token": 1, "no_mass": 1} and rows["m2"].n_errors == 2
    assert all(r.delimit is False for r in rows.values())
    assert rows["m1"].to_dict()["errors"] == {}


def test_binary_mae_is_the_share_of_wrong_answers():
    spec = load_spec("factual-consistency")
    cond = Condition("RandP", "Inst", 100)  # no unmodified run here; NonRelP rows would need one
    outcomes = [Outcome("m", cond, str(i), probs={"0": p, "1": 1 - p}) for i, p in enumerate((0.9, 0.4, 0.2, 0.6))]
    (row,) = summarize(outcomes, spec)
    assert row.mae == pytest.approx(0.5) and row.share_positive == pytest.approx(0.5)
    assert row.mean_p_positive == pytest.approx((0.1 + 0.6 + 0.8 + 0.4) / 4)


def test_outcome_needs_exactly_one_of_probs_and_error():
    with pytest.raises(ValueError):
        Outcome("m", BASE, "a")
    with pytest.raises(ValueError):
        Outcome("m", BASE, "a", probs={"0": 1.0}, error="x")


def test_nonrelp_manipulations_count_only_items_the_member_calls_negative_unmodified():
    # Seed 003 §3.2.1: NonRelP passages are non-relevant "by both the LLM and NIST judges". Item "b"
    # is one the member already calls relevant unmodified: it must not count as fooled by +Q.
    plain, stuffed = Condition("NonRelP", "none"), Condition("NonRelP", "Q")
    outcomes = [
        Outcome("m", plain, "a", probs=dist(0.7, 0.1, 0.1, 0.1)),   # 0: judged non-relevant
        Outcome("m", plain, "b", probs=dist(0.1, 0.1, 0.7, 0.1)),   # 2: member disagrees with the source
        Outcome("m", stuffed, "a", probs=dist(0.1, 0.7, 0.1, 0.1)),  # fooled to 1
        Outcome("m", stuffed, "b", probs=dist(0.1, 0.1, 0.1, 0.7)),  # 3, but was never a clean probe
    ]
    base, row = summarize(outcomes, RELEVANCE)
    assert (base.n_ok, base.n_excluded, base.mae) == (2, 0, pytest.approx(1.0))
    assert (row.n_ok, row.n_excluded) == (1, 1)
    assert row.mae == pytest.approx(1.0)  # not (1 + 3) / 2
    assert row.to_dict()["n_excluded"] == 1
