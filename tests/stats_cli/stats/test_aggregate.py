"""Majority, strict and median aggregation with p_d and documented ties."""

from __future__ import annotations

import pytest

from stats_cli.stats.aggregate import aggregate
from stats_cli.stats.ratings import RatingsTable


def table() -> RatingsTable:
    return RatingsTable.from_codes(
        [[1, 1, 1], [1, 1, 0], [0, 1, -1], [-1, -1, -1], [1, 0, 0]], categories=["0", "1"]
    )


def test_majority_with_share_and_tie_rule() -> None:
    out = aggregate(table(), method="majority")
    assert [a.label for a in out] == ["1", "1", "0", None, "0"]
    assert [a.p_d for a in out[:3]] == pytest.approx([1.0, 2 / 3, 0.5])
    assert out[2].tie and out[2].tied_labels == ("0", "1")  # first label in natural order
    assert not out[0].tie and out[3].p_d is None


def test_majority_tie_goes_to_negative_when_given() -> None:
    out = aggregate(table(), method="majority", negative="1")
    assert out[2].label == "1" and out[2].tie


def test_strict_any_negative_vote_wins() -> None:
    out = aggregate(table(), method="strict", negative="0")
    assert [a.label for a in out] == ["1", "0", "0", None, "0"]
    assert out[1].p_d == pytest.approx(1 / 3) and out[1].votes == 1
    with pytest.raises(ValueError):
        aggregate(table(), method="strict")


def test_median_on_numeric_scale_orders_numbers() -> None:
    t = RatingsTable.from_codes([[0, 1, 2], [2, 2, 1], [0, 2, -1]], categories=["2", "9", "10"])
    out = aggregate(t, method="median")
    assert [a.label for a in out] == ["9", "10", "2"]
    assert out[2].tie and out[2].tied_labels == ("2", "10")
    assert out[1].p_d == pytest.approx(2 / 3)


def test_median_of_two_ratings_is_a_real_grade_never_a_half_one() -> None:
    # 3 and 4: the median is one of them (the lower, as the Label Studio backend's median_label), never
    # "3.5", which would become a class nobody gave and a p_d = 0 stratum.
    t = RatingsTable.from_codes([[2, 3], [0, 4], [1, 1]], categories=["1", "2", "3", "4", "5"])
    out = aggregate(t, method="median")
    assert [a.label for a in out] == ["3", "1", "2"]
    assert [a.p_d for a in out] == pytest.approx([0.5, 0.5, 1.0])
    assert out[0].tie and out[0].tied_labels == ("3", "4") and not out[2].tie
    assert {a.label for a in out} <= set(t.categories)
    assert aggregate(t, method="median", negative="4")[0].label == "4"  # the tie rule of majority ties


def test_median_refuses_string_labels() -> None:
    with pytest.raises(ValueError, match="numeric"):
        aggregate(RatingsTable.from_codes([[0, 1]], categories=["a", "b"]), method="median")


def test_table_without_any_rating_aggregates_to_nothing() -> None:
    empty = RatingsTable.from_codes([[-1, -1], [-1, -1]], categories=[])
    for method in ("majority", "median"):
        assert [(a.label, a.p_d) for a in aggregate(empty, method=method)] == [(None, None), (None, None)]


def test_dawid_skene_trusts_the_reliable_annotators_over_a_careless_majority() -> None:
    # a0 and a1 agree with each other on every item; a2, a3, a4 answer at random and outvote them on
    # item 0. Dawid–Skene learns who is reliable and follows a0/a1 there; majority follows the three.
    import numpy as np

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60)
    noisy = rng.integers(0, 2, (60, 3))
    noisy[0] = 1 - truth[0]
    codes = np.column_stack([truth, truth, noisy])
    table = RatingsTable.from_codes(codes, categories=["0", "1"])
    ds = aggregate(table, method="dawid-skene")
    assert [a.label for a in ds] == [str(t) for t in truth]
    assert aggregate(table, method="majority")[0].label == str(1 - truth[0])
    assert ds[0].p_d == pytest.approx(2 / 5) and ds[0].votes == 2
