"""Quantile confidence bins with exact intervals, small bins merged (Nahum Fig. 2, App. G.2; issue 22 finding 7)."""

from __future__ import annotations

import numpy as np
import pytest

from stats_cli.stats.confidence_bins import confidence_bins


def sample(n: int = 200, seed: int = 1):
    rng = np.random.default_rng(seed)
    conf = rng.uniform(0.5, 1.0, n)
    original = np.where(rng.random(n) < 0.5, "0", "1")
    prediction = np.where(original == "0", "1", "0")  # every item is a disagreement
    sides_with_llm = rng.random(n) < conf  # experts side with the LLM more at high confidence
    gold = np.where(sides_with_llm, prediction, original)
    return original, prediction, conf, gold


def test_bins_are_equal_size_ordered_and_shares_sum_to_one() -> None:
    original, prediction, conf, gold = sample()
    out = confidence_bins(original, prediction, conf, gold, bins=4, resamples=200)
    assert [b.n for b in out] == [50, 50, 50, 50]
    assert all(a.conf_max <= b.conf_min for a, b in zip(out, out[1:]))
    for b in out:
        total = sum(s.value for s in b.shares.values())
        assert total == pytest.approx(1.0)
        for s in b.shares.values():
            assert s.low <= s.value <= s.high
    assert out[-1].shares["llm"].value > out[0].shares["llm"].value


def test_seed_makes_bootstrap_intervals_reproducible() -> None:
    args = sample()
    a = confidence_bins(*args, resamples=200, seed=3, interval="bootstrap")
    b = confidence_bins(*args, resamples=200, seed=3, interval="bootstrap")
    c = confidence_bins(*args, resamples=200, seed=4, interval="bootstrap")
    assert [x.to_json() for x in a] == [x.to_json() for x in b]
    assert [x.to_json() for x in a] != [x.to_json() for x in c]


def test_agreeing_items_are_left_out_and_tiny_bins_are_merged_with_an_exact_interval() -> None:
    out = confidence_bins(["1", "1", "0"], ["1", "0", "1"], [0.9, 0.8, 0.7], ["1", "0", "0"], bins=5)
    assert sum(b.n for b in out) == 2 and len(out) == 1  # two items: one bin, not two bins of one
    assert out[0].shares["original"].value == 0.5 and 0 < out[0].shares["original"].low < 0.5


def test_unanimous_bin_of_ten_gets_the_clopper_pearson_interval_not_one_to_one() -> None:
    (only,) = confidence_bins(["0"] * 10, ["1"] * 10, [0.9] * 10, ["1"] * 10, bins=5)
    assert only.shares["llm"].high == 1.0 and only.shares["llm"].low == pytest.approx(0.025 ** 0.1)
    (boot,) = confidence_bins(["0"] * 10, ["1"] * 10, [0.9] * 10, ["1"] * 10, bins=5, interval="bootstrap")
    assert (boot.shares["llm"].low, boot.shares["llm"].high) == (1.0, 1.0)  # the former interval


def test_bins_follow_quantiles_keep_ties_together_and_merge_below_the_minimum() -> None:
    conf = [0.75] + [0.8] * 3 + list(np.linspace(0.6, 0.99, 40))
    n = len(conf)
    out = confidence_bins(["0"] * n, ["1"] * n, conf, ["1"] * n, bins=5, min_n=10)
    assert all(b.n >= 10 for b in out) and sum(b.n for b in out) == n and len(out) == 4
    assert all(a.conf_max < b.conf_min for a, b in zip(out, out[1:]))  # the 0.8 ties sit in one bin


def test_exact_intervals_cover_where_the_bootstrap_did_not() -> None:
    rng = np.random.default_rng(4)
    hits = {"clopper-pearson": 0, "bootstrap": 0}
    runs, n, p = 150, 12, 0.85
    for _ in range(runs):
        llm_right = rng.random(n) < p
        gold = np.where(llm_right, "1", "0")
        for method in hits:
            (b,) = confidence_bins(["0"] * n, ["1"] * n, [0.9] * n, gold, bins=1, resamples=200,
                                   seed=int(rng.integers(1e6)), interval=method)
            share = b.shares["llm"]
            hits[method] += share.low <= p <= share.high
    assert hits["clopper-pearson"] / runs >= 0.93 and hits["bootstrap"] / runs < 0.9, hits


def test_ordinal_asks_who_is_closer_not_who_matches() -> None:
    # Nahum App. A.4.1: original 1, LLM 4 — an expert 3 makes the LLM closer though neither matches;
    # an expert 2 is closer to the original; an expert exactly between them (original 1, LLM 3, expert 2)
    # is "equally close".
    original = ["1", "1", "1", "5"]
    prediction = ["4", "4", "3", "2"]
    gold = ["3", "2", "2", "2"]
    (only,) = confidence_bins(original, prediction, [0.6, 0.7, 0.8, 0.9], gold, bins=1, resamples=50,
                              order=["1", "2", "3", "4", "5"])
    assert {k: s.value for k, s in only.shares.items()} == {"llm": 0.5, "original": 0.25, "equal": 0.25}
    (exact,) = confidence_bins(original, prediction, [0.6, 0.7, 0.8, 0.9], gold, bins=1, resamples=50)
    assert exact.shares["neither"].value == 0.75  # the exact-match reading calls three of them "neither"
    with pytest.raises(ValueError, match="not in the ordinal order"):
        confidence_bins(["1"], ["7"], [0.9], ["1"], order=["1", "2"])
