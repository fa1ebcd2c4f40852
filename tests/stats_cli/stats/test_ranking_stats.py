"""Ranking agreement against known values: Kendall's W (and scipy's Friedman χ² = m (n - 1) W), τ, summaries."""

from __future__ import annotations

import pytest
from scipy.stats import friedmanchisquare

from stats_cli.stats.ranking_stats import agreement, kendall_w, mean_pairwise_tau, tau, tau_summary


def test_tau_is_one_for_the_same_order_minus_one_reversed_and_counts_common_ids_only():
    assert tau(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert tau(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    assert tau(["a", "b", "c", "d"], ["b", "a", "c", "d"]) == pytest.approx(4 / 6)  # one of 6 pairs swapped
    assert tau(["a", "b", "x"], ["b", "a", "y"]) == -1.0  # only a, b are common
    assert tau(["a", "x"], ["a", "y"]) is None


def test_kendall_w_known_values():
    assert kendall_w([["a", "b", "c"]] * 3) == pytest.approx(1.0)
    # Two rankers in opposite orders: the rank sums are all equal, no concordance.
    assert kendall_w([["a", "b", "c"], ["c", "b", "a"]]) == pytest.approx(0.0)
    # Worked by hand: 3 rankers, 4 ids; rank sums a=4, b=6, c=8, d=12 (mean 7.5): S = 35, W = 12*35/(9*60) = 7/9.
    three = [["a", "b", "c", "d"], ["a", "c", "b", "d"], ["b", "a", "c", "d"]]
    assert kendall_w(three) == pytest.approx(7 / 9)
    assert kendall_w([["a", "b"]]) is None


def test_kendall_w_matches_scipys_friedman_statistic():
    rankings = [["a", "b", "c", "d", "e"], ["b", "a", "c", "e", "d"], ["a", "c", "b", "d", "e"],
                ["e", "a", "b", "c", "d"]]
    m, n = len(rankings), 5
    ranks_of = {i: [r.index(i) + 1 for r in rankings] for i in "abcde"}
    chi2 = friedmanchisquare(*ranks_of.values()).statistic
    assert kendall_w(rankings) == pytest.approx(chi2 / (m * (n - 1)))


def test_mean_pairwise_tau_and_agreement_over_items():
    assert mean_pairwise_tau([["a", "b", "c"], ["a", "b", "c"], ["c", "b", "a"]]) == pytest.approx((1 - 1 - 1) / 3)
    answers = {"1": {"x": ["a", "b"], "y": ["a", "b"]}, "2": {"x": ["a", "b", "c"], "y": ["c", "b", "a"]},
               "3": {"x": ["a", "b"], "y": None}}
    result = agreement(answers)
    assert result.items == 2 and result.mean_tau == pytest.approx(0.0) and result.mean_w == pytest.approx(0.5)


def test_tau_summary_quartiles_and_shares():
    s = tau_summary([1.0, 1.0, 0.5, -1.0, None])
    assert s.n == 4 and s.mean == pytest.approx(0.375)
    assert s.quartiles == pytest.approx((0.125, 0.75, 1.0))
    assert s.below_one == 0.5 and s.negative == 0.25
    assert tau_summary([]).n == 0
