"""Elangovan et al. (2026): Table 1 (binomial tails), Table 2 (expected precision/F1), Table 3 E column."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stats_cli.stats.expected import expected_scores, prob_at_least, random_labeller


@pytest.mark.parametrize(
    ("p_d", "m", "precision", "f1"),
    [
        (0.5, 0.01, 0.01, 0.02),
        (0.5, 0.10, 0.10, 0.17),
        (0.5, 0.50, 0.50, 0.50),
        (0.6, 0.01, 0.01, 0.03),
        (0.6, 0.10, 0.14, 0.23),
    ],
)
def test_table2(p_d: float, m: float, precision: float, f1: float) -> None:
    scores = expected_scores(p_d, m)
    assert round(scores.precision, 2) == precision
    assert round(scores.f1, 2) == f1
    assert scores.accuracy == scores.recall == p_d


@pytest.mark.parametrize(
    ("p_d", "m", "f1"),
    [(0.60, 0.507, 0.60), (0.80, 0.372, 0.75), (0.97, 0.037, 0.71)],  # Table 3, Cardiomegaly, E column
)
def test_table3_expected_f1(p_d: float, m: float, f1: float) -> None:
    assert round(expected_scores(p_d, m).f1, 2) == f1


@pytest.mark.parametrize(
    ("p_d", "n", "r", "shown"),
    [(0.25, 100, 50, "6.6e-08"), (0.5, 100, 50, "0.54")],
)
def test_table1_n100(p_d: float, n: int, r: int, shown: str) -> None:
    value = prob_at_least(n, r, p_d)
    assert (f"{value:.1e}" if value < 0.01 else f"{value:.2f}") == shown


def test_table1_n100_r80_is_truncated_in_the_paper() -> None:
    # exact tail 1.2667e-30; the paper prints 1.2e-30 (truncated, not rounded)
    value = prob_at_least(100, 80, 0.25)
    assert 1.2e-30 <= value < 1.3e-30
    assert value == pytest.approx(1.26668e-30, rel=1e-4)


@pytest.mark.parametrize(("p_d", "r", "shown"), [(0.25, 5, "0.08"), (0.25, 8, "0.00"), (0.5, 5, "0.62")])
def test_table1_n10(p_d: float, r: int, shown: str) -> None:
    assert f"{prob_at_least(10, r, p_d):.2f}" == shown


def test_random_labeller_is_one_over_l() -> None:
    assert random_labeller(0.3, n_classes=4).accuracy == 0.25
    with pytest.raises(ValueError):
        random_labeller(0.3, n_classes=1)
    with pytest.raises(ValueError):
        expected_scores(1.2, 0.5)


@given(st.floats(0.01, 0.99), st.floats(0.01, 0.99))
def test_balanced_classes_give_precision_p_d(p_d: float, m: float) -> None:
    assert expected_scores(p_d, 0.5).precision == pytest.approx(p_d)
    assert 0.0 <= expected_scores(p_d, m).f1 <= 1.0


def test_random_baseline_over_l_classes_has_precision_m() -> None:
    # issue 22, finding 6: without the /(L−1) term a uniform labeller over 4 classes got precision 0.10
    rand = random_labeller(0.25, n_classes=4)
    assert rand.precision == pytest.approx(0.25) and rand.recall == pytest.approx(0.25)
    assert random_labeller(0.4, n_classes=3).precision == pytest.approx(0.4)  # uniform: precision = m
    assert expected_scores(0.8, 0.3, n_classes=2).precision == pytest.approx(0.24 / (0.24 + 0.7 * 0.2))
