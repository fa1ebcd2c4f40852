"""Clopper-Pearson and FPC bounds: scipy reference, Nahum Table 2, invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta

from stats_cli.stats.bounds import clopper_pearson, error_rate_bounds, fpc_factor, nahum_table2_interval

# Nahum et al. 2024, Table 2: error % on the 160-item evaluation sample and, in parentheses, the
# lower bound for the whole dataset. Population = dataset size in TRUE (Honovich et al. 2022).
TABLE2 = {
    "MNBM": (27, 2500, 16.9, 11.6),
    "BEGIN": (34, 836, 21.2, 15.8),
    "VitaminC": (13, 63054, 8.1, 4.4),
}


@pytest.mark.parametrize("name", sorted(TABLE2))
def test_nahum_table2_lower_bounds(name: str) -> None:
    errors, population, pct, lower = TABLE2[name]
    bounds = error_rate_bounds(errors, 160, population=population)
    assert round(bounds.rate * 100, 1) == pct
    assert round(bounds.fpc_low * 100, 1) == lower


def test_nahum_table2_paws_is_off_by_rounding() -> None:
    # PAWS 10/160 of 8,000: the FPC bound is 3.07 % (paper prints 3.0); the uncorrected exact
    # bound is 3.04 %, so the paper's figure is below even the infinite-population bound's rounding.
    bounds = error_rate_bounds(10, 160, population=8000)
    assert bounds.fpc_low * 100 == pytest.approx(3.0696, abs=1e-3)
    assert bounds.cp_low * 100 == pytest.approx(3.0375, abs=1e-3)


def test_clopper_pearson_matches_beta_quantiles() -> None:
    low, high = clopper_pearson(7, 50, confidence=0.9)
    assert low == pytest.approx(beta.ppf(0.05, 7, 44))
    assert high == pytest.approx(beta.ppf(0.95, 8, 43))
    assert clopper_pearson(0, 10)[0] == 0.0 and clopper_pearson(10, 10)[1] == 1.0


def test_invalid_inputs_raise() -> None:
    with pytest.raises(ValueError):
        clopper_pearson(5, 4)
    with pytest.raises(ValueError):
        clopper_pearson(1, 0)
    with pytest.raises(ValueError):
        nahum_table2_interval(1, 10, 5)
    with pytest.raises(ValueError):
        clopper_pearson(1, 10, confidence=1.5)


def test_json_keys() -> None:
    assert set(error_rate_bounds(3, 40).to_json()) >= {"rate", "cp_low", "cp_high"}
    assert {"fpc_low", "fpc_high"} <= set(error_rate_bounds(3, 40, population=100).to_json())


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n), st.integers(n, 5000))))
def test_intervals_contain_rate_and_fpc_is_inside_cp(case: tuple[int, int, int]) -> None:
    k, n, population = case
    rate = k / n
    low, high = clopper_pearson(k, n)
    f_low, f_high = nahum_table2_interval(k, n, population)
    assert low <= rate <= high
    assert low - 1e-12 <= f_low <= rate <= f_high <= high + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_nahum_table2_interval_shrinks_to_rate_as_sample_reaches_population(case: tuple[int, int]) -> None:
    k, n = case
    widths = [nahum_table2_interval(k, n, population)[1] - nahum_table2_interval(k, n, population)[0] for population in (10 * n, 2 * n, n + 1, n)]
    assert all(a >= b - 1e-12 for a, b in zip(widths, widths[1:]))
    assert nahum_table2_interval(k, n, n) == pytest.approx((k / n, k / n))
    assert fpc_factor(n, n) == 0.0


@pytest.mark.parametrize("rate", [0.05, 0.2, 0.5])
def test_fpc_width_falls_to_zero_as_sample_grows_to_population(rate: float) -> None:
    population = 1000
    widths = []
    for n in range(100, population + 1, 100):
        low, high = nahum_table2_interval(round(rate * n), n, population)
        assert low <= round(rate * n) / n <= high
        widths.append(high - low)
    assert all(a > b for a, b in zip(widths, widths[1:]))
    assert widths[-1] == 0.0
