"""Stratified error-rate estimate: the exact finite-population interval for one stratum, sane with many, CLI keys."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from stats_cli.stats.bounds import error_rate_bounds
from stats_cli.cli import app
from stats_cli.stats.detector import detector_estimates
from stats_cli.stats.error_rate import StratumCount, estimate_rate, parse_stratum

runner = CliRunner()

# Nahum Table 2 counts (k of 160, dataset size N) and the printed FPC lower bounds, in %.
TABLE2 = {"MNBM": (27, 2500, 11.6), "BEGIN": (34, 836, 15.8), "VitaminC": (13, 63054, 4.4)}


@pytest.mark.parametrize("name", sorted(TABLE2))
def test_one_stratum_is_the_exact_finite_population_interval(name: str) -> None:
    errors, population, lower = TABLE2[name]
    est = estimate_rate([StratumCount(population, 160, errors)])
    ref = error_rate_bounds(errors, 160, population=population)
    assert (est.rate, est.low, est.high) == (ref.rate, ref.exact_low, ref.exact_high)
    assert abs(est.low * 100 - lower) <= 0.15  # Nahum's CP+FPC figure, to within D's 1/N grid and rounding
    assert est.errors_estimate == pytest.approx(errors / 160 * population)


def test_census_stratum_has_no_width_and_an_empty_sample_stratum_still_widens() -> None:
    census = StratumCount(200, 200, 150, "flagged")
    quiet = StratumCount(9800, 100, 0, "unflagged")  # no error found in the sample
    est = estimate_rate([census, quiet])
    flagged_part, unflagged_part = est.strata
    assert flagged_part.low == flagged_part.high == 0.75
    assert unflagged_part.rate == 0.0 and unflagged_part.high > 0.03  # Clopper-Pearson 0-of-100 upper end
    assert est.rate == pytest.approx(150 / 10000)
    # The 0-error stratum alone sets the upper width: W_u · u_u (its exact interval, the only sampled stratum).
    assert est.high == pytest.approx(est.rate + 0.98 * unflagged_part.high)
    assert est.low == pytest.approx(est.rate)  # nothing can be below the census's errors


def test_weights_follow_stratum_sizes() -> None:
    est = estimate_rate([StratumCount(1000, 50, 10, "a"), StratumCount(3000, 50, 1, "b")])
    assert est.rate == pytest.approx(0.25 * 0.2 + 0.75 * 0.02)
    assert est.low < est.rate < est.high
    assert [s.weight for s in est.strata] == [0.25, 0.75]


def test_detector_precision_recall_and_errors_left() -> None:
    det = detector_estimates([StratumCount(200, 200, 150, "flagged")], [StratumCount(9800, 100, 2, "unflagged")])
    assert det.precision.rate == 0.75 and det.precision.low == det.precision.high == 0.75
    assert det.errors_left == pytest.approx(196.0)
    assert det.recall.rate == pytest.approx(150 / (150 + 196))
    assert det.recall.low < det.recall.rate < det.recall.high
    # No error anywhere in the unflagged sample: recall is at most 1 and its lower end is below 1.
    none_left = detector_estimates([StratumCount(200, 200, 150)], [StratumCount(9800, 100, 0)])
    assert none_left.recall.rate == 1.0 and none_left.recall.high == 1.0 and none_left.recall.low < 0.5


@pytest.mark.parametrize("text, message", [
    ("10:5", "expected N:n:errors"), ("10:x:1", "whole numbers"), ("10:20:1", "smaller than its sample"),
    ("10:5:6", "between 0 and 5"), ("10:0:0", "at least 1"),
])
def test_bad_strata_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_stratum(text)
    result = runner.invoke(app, ["estimate", "--stratum", text])
    assert result.exit_code == 2 and message in result.output


def test_cli_json_keys_and_equality_with_bounds() -> None:
    out = json.loads(runner.invoke(app, ["estimate", "--stratum", "2500:160:27", "--json"]).stdout)
    assert {"rate", "low", "high", "method", "errors_estimate", "strata"} <= set(out)
    ref = json.loads(runner.invoke(app, ["bounds", "--errors", "27", "--sample", "160", "--population", "2500",
                                         "--json"]).stdout)
    assert (out["low"], out["high"]) == (ref["exact_low"], ref["exact_high"])
    assert out["strata"][0]["inclusion_probability"] == pytest.approx(160 / 2500)


def test_cli_flagged_strata_add_the_detector() -> None:
    result = runner.invoke(app, ["estimate", "--flagged", "200:200:150", "--stratum", "9800:100:2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [s["name"] for s in out["strata"]] == ["flagged", "unflagged"]
    assert out["detector"]["errors_left"] == pytest.approx(196.0)
    table = runner.invoke(app, ["estimate", "--flagged", "200:200:150", "--stratum", "9800:100:2"])
    assert "recall" in table.output and "gamma" in table.output
