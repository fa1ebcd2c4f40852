"""Ensemble arithmetic: normalisation (once, at the member boundary), averaging over answering members,
argmax ties, flag rules."""

from __future__ import annotations

import pytest

from backend.scoring.ensemble import argmax, average, check_distribution, decide, disagrees, normalize, resolve_threshold
from backend.task.spec import load_spec

BIN = load_spec("factual-consistency")
LIK = load_spec("likert")


def test_normalize_restricts_to_labels_and_rescales():
    assert normalize({"0": 2.0, "1": 6.0, "x": 100.0}, ["0", "1"]) == {"0": 0.25, "1": 0.75}
    assert normalize({"1": 0.3}, ["0", "1"]) == {"0": 0.0, "1": 1.0}
    for bad in ({"0": 0.0, "1": 0.0}, {"0": -0.1, "1": 1.0}, {"0": float("nan"), "1": 1.0}):
        with pytest.raises(ValueError):
            normalize(bad, ["0", "1"])


def test_average_skips_failed_members():
    probs = average([{"0": 0.5, "1": 0.5}, None, {"0": 0.9, "1": 0.1}], ["0", "1"])
    assert probs == pytest.approx({"0": 0.7, "1": 0.3})
    assert average([{"1": 1.0}], ["0", "1"]) == {"0": 0.0, "1": 1.0}  # a missing label has no mass
    assert average([None, None], ["0", "1"]) is None


@pytest.mark.parametrize("bad, problem", [
    ({"0": 0.2, "1": 0.2}, "must sum to 1"),  # unnormalised: the engine normalises, not the average
    ({"0": 0.5, "1": 0.3, "x": 0.2}, "must sum to 1"),  # mass off the label set
    ({"0": -0.1, "1": 1.1}, "non-negative"),
    ({"0": float("nan"), "1": 1.0}, "finite"),
])
def test_average_and_decide_refuse_a_distribution_that_is_not_normalised(bad, problem):
    with pytest.raises(ValueError, match=problem):
        average([{"0": 0.5, "1": 0.5}, bad], ["0", "1"])
    with pytest.raises(ValueError, match=problem):
        decide(bad, "1", BIN)
    assert check_distribution({"0": 0.3, "1": 0.7 + 1e-9}, ["0", "1"]) == {"0": 0.3, "1": 0.7 + 1e-9}  # rounding passes


def test_argmax_ties_go_to_the_earlier_class():
    assert argmax({"0": 0.5, "1": 0.5}, ["0", "1"]) == "0"
    assert argmax({"1": 0.1, "2": 0.4, "3": 0.4, "4": 0.1, "5": 0.0}, LIK.labels) == "2"


def test_binary_flag_needs_disagreement_and_confidence():
    assert decide({"0": 0.8, "1": 0.2}, "1", BIN).flagged
    assert not decide({"0": 0.8, "1": 0.2}, "0", BIN).flagged
    d = decide({"0": 0.8, "1": 0.2}, "1", BIN, threshold=0.85)
    assert (d.prediction, d.confidence, d.flagged) == ("0", pytest.approx(0.8), False)
    assert not decide({"0": 0.8, "1": 0.2}, "1", BIN, threshold=0.8).flagged  # must exceed the threshold
    assert not decide({"0": 0.8, "1": 0.2}, None, BIN).flagged  # unlabelled items are never flagged


def test_ordinal_flag_uses_delta_and_default_threshold():
    probs = {"1": 0.05, "2": 0.05, "3": 0.1, "4": 0.3, "5": 0.5}
    assert decide(probs, "5", LIK).prediction == "5"
    assert not decide(probs, "4", LIK).flagged  # distance 1 is not > 1
    assert decide(probs, "4", LIK, delta=0).flagged  # distance 1 > 0
    assert decide(probs, "3", LIK).flagged  # distance 2 > 1
    assert not decide(probs, "3", LIK, delta=2).flagged
    assert decide(probs, "1", LIK, delta=3).flagged  # distance 4 > 3
    low = {"1": 0.19, "2": 0.19, "3": 0.19, "4": 0.19, "5": 0.24}
    assert decide(low, "1", LIK).flagged  # 0.24 > the ordinal default 0.2
    assert not decide(low, "1", LIK, threshold=0.3).flagged
    assert disagrees("5", "3", LIK, delta=1) and not disagrees("5", "4", LIK, delta=1)
    assert not disagrees("5", None, LIK)


def test_thresholds_and_delta_are_validated():
    assert resolve_threshold(BIN, None) == 0.55 and resolve_threshold(LIK, None) == 0.2
    with pytest.raises(ValueError):
        resolve_threshold(BIN, 1.5)
    with pytest.raises(ValueError):
        decide({"0": 1.0, "1": 0.0}, "1", BIN, delta=-1)
