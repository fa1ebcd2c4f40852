"""Weighted κ and Krippendorff α on ordered grades, against scikit-learn and the krippendorff package.

Real ratings: ChaosNLI's SNLI part (Nie, Zhou & Bansal 2020, CC BY-NC 4.0), the five original SNLI
annotators' labels per item, read from the shared data folder beside the checkout (never copied into the
repository; the tests that need it skip without it). NLI labels are coded on their usual graded scale
entailment = 1 < neutral = 2 < contradiction = 3 for the ordinal and interval figures: what is checked is
that this module gives the references' numbers on real, messy ratings.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from stats_cli.stats.agreement import weighted_kappa
from stats_cli.stats.ordinal_agreement import ordinal_agreement
from stats_cli.stats.ratings import RatingsTable

REPO = Path(__file__).resolve().parents[3]
CHAOSNLI = "data/chaosnli/chaosNLI_snli.jsonl"
GRADE = {"entailment": "1", "neutral": "2", "contradiction": "3"}


def _chaosnli_ratings() -> list[list[str | None]]:
    for shared in (REPO.parent / "shared", REPO.parent.parent / "shared"):  # beside the checkout or its folder
        path = shared / CHAOSNLI
        if path.is_file():
            rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
            return [[GRADE[x] for x in r["old_labels"]] + [None] * (5 - len(r["old_labels"])) for r in rows]
    pytest.skip("ChaosNLI not found beside the checkout (../shared/data/chaosnli)")


def _table(rows: list[list[str | None]], grades=("1", "2", "3")) -> RatingsTable:
    codes = [[-1 if x is None else grades.index(x) for x in row] for row in rows]
    return RatingsTable.from_codes(codes, categories=list(grades))


def test_weighted_kappa_by_hand():
    # a = 1 2 3, b = 1 3 3: one disagreement of one grade. Expected weighted disagreement from the
    # marginals (a: 1,1,1; b: 1,0,2): quadratic 15/3, linear 9/3; observed 1 -> κ = 1 - 1/5 and 1 - 1/3.
    table = _table([["1", "1"], ["2", "3"], ["3", "3"]])
    assert weighted_kappa(table, weights="quadratic").value == pytest.approx(0.8)
    assert weighted_kappa(table, weights="linear").value == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        weighted_kappa(table, weights="cubic")  # type: ignore[arg-type]


def test_two_raters_on_real_ratings_match_scikit_learn():
    rows = _chaosnli_ratings()
    a = [r[0] for r in rows]
    b = [r[1] for r in rows]
    table = _table([[x, y] for x, y in zip(a, b)])
    for weights in ("linear", "quadratic"):
        reference = cohen_kappa_score(a, b, labels=["1", "2", "3"], weights=weights)
        assert weighted_kappa(table, weights=weights).value == pytest.approx(reference, abs=1e-12)
    summary = ordinal_agreement(table, grades=["1", "2", "3"])
    assert summary.value("cohen_kappa") == pytest.approx(cohen_kappa_score(a, b))
    # distance-aware figures give partial credit: a 1-vs-2 costs less than a 1-vs-3
    assert summary.value("kappa_quadratic") > summary.value("cohen_kappa")


def test_five_raters_alpha_levels_match_krippendorff_and_kappa_is_the_mean_over_pairs():
    rows = _chaosnli_ratings()
    table = _table(rows)
    summary = ordinal_agreement(table, grades=["1", "2", "3"])
    reliability = np.array([[np.nan if x is None else float(x) for x in row] for row in rows]).T  # raters × items
    for level in ("nominal", "ordinal", "interval"):
        reference = krippendorff.alpha(reliability_data=reliability, level_of_measurement=level)
        assert summary.value(f"alpha_{level}") == pytest.approx(reference, abs=1e-9), level
    pairs = []
    for j, k in itertools.combinations(range(5), 2):
        both = [(r[j], r[k]) for r in rows if r[j] is not None and r[k] is not None]
        pairs.append(cohen_kappa_score(*zip(*both), labels=["1", "2", "3"], weights="quadratic"))
    assert summary.value("kappa_quadratic") == pytest.approx(np.mean(pairs))
    assert summary.n_raters == 5 and summary.n_items == len(rows)
    assert summary.value("cohen_kappa") is None and "two annotators" in summary.coefficients["cohen_kappa"].reason


def test_unused_grades_still_count_in_the_distances():
    # raters used only 1 and 5 of a 1-5 scale: declared, the interval between them is 4 grades wide
    table = RatingsTable.from_codes([[0, 0], [1, 1], [0, 1], [1, 1]], categories=["1", "5"])
    declared = ordinal_agreement(table, grades=["1", "2", "3", "4", "5"])
    assert declared.grades == ("1", "2", "3", "4", "5")
    a, b = ["1", "5", "1", "5"], ["1", "5", "5", "5"]
    assert declared.value("kappa_linear") == pytest.approx(
        cohen_kappa_score(a, b, labels=["1", "2", "3", "4", "5"], weights="linear"))
    reliability = np.array([[1, 5, 1, 5], [1, 5, 5, 5]], dtype=float)
    assert declared.value("alpha_interval") == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="interval"))


def test_undefined_figures_say_why_instead_of_nan():
    one_grade = ordinal_agreement(_table([["2", "2"], ["2", "2"]]), grades=["1", "2", "3"])
    assert one_grade.value("kappa_quadratic") is None
    assert "one grade" in one_grade.coefficients["kappa_quadratic"].reason
    assert one_grade.to_json()["undefined"]["kappa_quadratic"]
    lone = ordinal_agreement(_table([["2", None], ["3", None]]), grades=["1", "2", "3"])
    assert lone.n_items == 0 and lone.value("alpha_ordinal") is None
    words = ordinal_agreement(_table([["a", "b"], ["b", "b"], ["a", "a"]], grades=("a", "b")), grades=["a", "b"])
    assert words.value("alpha_interval") is None and "numeric" in words.coefficients["alpha_interval"].reason


def test_the_agreement_summary_adds_weighted_kappa_at_the_ordinal_and_interval_levels():
    from stats_cli.stats.agreement_summary import agreement_summary

    table = _table([["1", "1"], ["2", "3"], ["3", "3"], ["1", "2"]])
    assert "weighted_kappa_quadratic" not in agreement_summary(table, level="nominal").coefficients
    for level in ("ordinal", "interval"):
        summary = agreement_summary(table, level=level).to_json()
        assert summary["weighted_kappa_quadratic"] == pytest.approx(weighted_kappa(table).value)
        assert summary["weighted_kappa_linear"] == pytest.approx(weighted_kappa(table, weights="linear").value)


def test_weighted_kappa_weighs_numeric_grades_by_their_values_not_their_rank():
    # Grades seen {1, 2, 5}, no --labels: a 2-vs-5 disagreement is three points, not one rank. Weighted on the
    # values, κ equals scikit-learn's on the whole declared 1-5 scale (equally spaced codes = values).
    from stats_cli.stats.agreement_summary import agreement_summary

    a = ["1", "2", "5", "5", "2", "1", "5", "2", "1", "5"]
    b = ["1", "5", "5", "2", "2", "2", "5", "1", "1", "5"]
    seen = _table([[x, y] for x, y in zip(a, b)], grades=("1", "2", "5"))
    for weights in ("linear", "quadratic"):
        reference = cohen_kappa_score(a, b, labels=["1", "2", "3", "4", "5"], weights=weights)
        assert weighted_kappa(seen, weights=weights).value == pytest.approx(reference, abs=1e-12)
    summary = agreement_summary(seen, level="interval")
    assert summary.value("weighted_kappa_quadratic") == pytest.approx(
        cohen_kappa_score(a, b, labels=["1", "2", "3", "4", "5"], weights="quadratic"), abs=1e-12)
    by_rank = cohen_kappa_score(a, b, labels=["1", "2", "5"], weights="quadratic")
    assert abs(summary.value("weighted_kappa_quadratic") - by_rank) > 0.01
