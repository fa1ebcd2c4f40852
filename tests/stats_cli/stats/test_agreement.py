"""Agreement coefficients against the seeds' worked examples, published values and the libraries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from stats_cli.stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    observed_agreement,
    specific_agreement,
)
from stats_cli.stats.aggregate import aggregate
from stats_cli.stats.agreement_summary import agreement_summary
from stats_cli.stats.ratings import RatingsTable

NA = -1


def two_raters(both_pos: int, both_neg: int, only_a: int, only_b: int) -> RatingsTable:
    codes = [[1, 1]] * both_pos + [[0, 0]] * both_neg + [[1, 0]] * only_a + [[0, 1]] * only_b
    return RatingsTable.from_codes(codes, categories=["0", "1"])


def article_skewed() -> RatingsTable:
    """'Why is annotation hard?': 1 both toxic, 91 both not, 4 + 4 split."""
    return two_raters(1, 91, 4, 4)


def gwet_4raters() -> RatingsTable:
    """Gwet (2014) / Krippendorff (2011): 4 raters, 12 units, categories 1-5, missing ratings."""
    raw = np.array([
        [1, 1, NA, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
        [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [NA, 5, 5, 5], [NA, NA, 1, 1], [NA, NA, 3, NA],
    ])
    return RatingsTable.from_codes(np.where(raw > 0, raw - 1, -1), categories=["1", "2", "3", "4", "5"])


def test_article_skewed_example_kappa_and_positive_agreement() -> None:
    summary = agreement_summary(article_skewed())
    assert summary.value("pct_agreement") == pytest.approx(0.92)
    assert round(summary.value("cohen_kappa"), 2) == 0.16
    assert round(summary.value("fleiss_kappa"), 2) == 0.16
    assert summary.value("positive_agreement") == pytest.approx(0.20)
    assert summary.positive_label == "1"
    # chance agreement 0.905 as the article says: κ = (0.92 - 0.905) / (1 - 0.905)
    assert summary.value("cohen_kappa") == pytest.approx((0.92 - 0.905) / (1 - 0.905))
    # two-rater AC1 by its closed form: π = 0.05, P_e = 2π(1−π)
    assert summary.value("gwet_ac1") == pytest.approx((0.92 - 0.095) / (1 - 0.095))


def test_article_balanced_example() -> None:
    summary = agreement_summary(two_raters(46, 46, 4, 4))
    assert summary.value("pct_agreement") == pytest.approx(0.92)
    assert summary.value("cohen_kappa") == pytest.approx(0.84)
    assert summary.value("positive_agreement") == pytest.approx(0.92)


def test_gwet_published_values_with_missing_ratings() -> None:
    counts = gwet_4raters().counts()
    assert observed_agreement(counts).value == pytest.approx(0.81818, abs=5e-6)
    assert gwet_ac1(counts).value == pytest.approx(0.77544, abs=5e-6)
    assert fleiss_kappa(counts).value == pytest.approx(0.76117, abs=5e-6)


def test_krippendorff_published_example() -> None:
    table = gwet_4raters()
    # Krippendorff (2011) "Computing Krippendorff's alpha-reliability": nominal 0.743, interval 0.849
    assert round(krippendorff_alpha(table, level="nominal").value, 3) == 0.743
    assert round(krippendorff_alpha(table, level="interval").value, 3) == 0.849


def test_krippendorff_matches_package_on_raw_data() -> None:
    import krippendorff

    table = gwet_4raters()
    raw = np.where(table.codes >= 0, table.codes + 1.0, np.nan).T
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=raw, level_of_measurement=level, value_domain=[1, 2, 3, 4, 5])
        assert krippendorff_alpha(table, level=level).value == pytest.approx(expected)


def test_ordinal_alpha_orders_numbers_numerically() -> None:
    # labels 9 and 10 must be adjacent; as strings "10" would sort before "9"
    codes = [[0, 1], [1, 2], [0, 0], [2, 2], [1, 1]]
    numeric = RatingsTable.from_codes(codes, categories=["8", "9", "10"])
    assert numeric.categories == ["8", "9", "10"]
    shifted = RatingsTable.from_codes(codes, categories=["1", "2", "3"])
    assert krippendorff_alpha(numeric, level="ordinal").value == pytest.approx(
        krippendorff_alpha(shifted, level="ordinal").value)


def test_interval_alpha_refuses_string_labels() -> None:
    table = RatingsTable.from_codes([[0, 1], [1, 1]], categories=["bad", "good"])
    alpha = krippendorff_alpha(table, level="interval")
    assert alpha.value is None and "numeric" in alpha.reason


def test_fleiss_matches_statsmodels_for_equal_raters() -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 4, size=(200, 5))
    codes[:60] = codes[:60, :1]  # some agreement
    table = RatingsTable.from_codes(codes)
    assert fleiss_kappa(table.counts()).value == pytest.approx(sm_fleiss_kappa(table.counts()))


def test_cohen_matches_sklearn_and_needs_two_complete_raters() -> None:
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(80, 2))
    table = RatingsTable.from_codes(codes)
    assert cohen_kappa(table).value == pytest.approx(cohen_kappa_score(codes[:, 0], codes[:, 1]))
    codes[5, 1] = -1
    assert cohen_kappa(RatingsTable.from_codes(codes)).value is None
    three = RatingsTable.from_codes(rng.integers(0, 3, size=(10, 3)))
    assert "exactly two" in cohen_kappa(three).reason


def test_one_category_everywhere_is_undefined_not_nan() -> None:
    table = RatingsTable.from_codes([[0, 0, 0], [0, 0, -1], [0, 0, 0]], categories=["ok"])
    summary = agreement_summary(table)
    payload = summary.to_json()
    for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "cohen_kappa"):
        assert payload[name] is None
        assert payload["undefined"][name]
    assert payload["pct_agreement"] == 1.0


def test_binary_table_with_one_label_used_reports_kappa_undefined() -> None:
    table = RatingsTable.from_codes([[1, 1], [1, 1]], categories=["0", "1"])
    counts = table.counts()
    assert fleiss_kappa(counts).value is None
    assert specific_agreement(counts, 1).value == 1.0
    assert specific_agreement(counts, 0).value is None


def test_nahum_table3_expert_after_reconciliation_constructed() -> None:
    # 222 items, 2 experts: a table consistent with Table 3 "after reconciliation" (κ 0.851, 93.2 %)
    summary = agreement_summary(two_raters(70, 137, 7, 8))
    assert round(summary.value("pct_agreement") * 100, 1) == 93.2
    assert round(summary.value("fleiss_kappa"), 3) == 0.851


def test_nahum_table3_mturk_constructed() -> None:
    # 400 items, 3 workers: 40.8 % unanimous (App. B), 60.5 % agreement and κ 0.074 (Table 3)
    codes = [[1, 1, 1]] * 145 + [[0, 0, 0]] * 18 + [[1, 1, 0]] * 158 + [[1, 0, 0]] * 79
    table = RatingsTable.from_codes(codes, categories=["0", "1"])
    summary = agreement_summary(table)
    assert round(summary.value("pct_agreement") * 100, 1) == 60.5
    assert round(summary.value("fleiss_kappa"), 3) == 0.074
    majority = aggregate(table, method="majority")
    assert round(100 * sum(a.label == "1" for a in majority) / 400, 1) == 75.8  # App. B: 75.8 % consistent
    assert round(100 * sum(a.p_d == 1.0 for a in majority) / 400, 1) == 40.8  # unanimous


# ---------------------------------------------------------------- properties

label_matrix = st.integers(min_value=2, max_value=12).flatmap(  # -1 = missing rating
    lambda n: st.lists(st.lists(st.integers(-1, 3), min_size=3, max_size=3), min_size=n, max_size=n)
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=30), st.integers(2, 5))
def test_identical_raters_have_kappa_one(labels: list[int], raters: int) -> None:
    codes = np.repeat(np.array(labels)[:, None], raters, axis=1)
    table = RatingsTable.from_codes(codes, categories=["a", "b", "c", "d"])
    counts = table.counts()
    if len(set(labels)) > 1:
        assert fleiss_kappa(counts).value == pytest.approx(1.0)
        assert krippendorff_alpha(table).value == pytest.approx(1.0)
    else:
        assert fleiss_kappa(counts).value is None
    assert gwet_ac1(counts).value == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(label_matrix, st.randoms(use_true_random=False))
def test_permutation_invariance(rows: list[list[int]], rnd) -> None:
    codes = np.array(rows)
    shuffled = codes[rnd.sample(range(len(codes)), len(codes))][:, rnd.sample(range(3), 3)]
    a = agreement_summary(RatingsTable.from_codes(codes, categories=["0", "1", "2", "3"])).to_json()
    b = agreement_summary(RatingsTable.from_codes(shuffled, categories=["0", "1", "2", "3"])).to_json()
    for name in ("pct_agreement", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
        if a[name] is None:
            assert b[name] is None
        else:
            assert b[name] == pytest.approx(a[name])


def test_declared_label_set_covers_unused_labels() -> None:
    table = RatingsTable.from_codes([[0, 0], [0, 0], [0, 0]], categories=["0"])
    plain = agreement_summary(table).to_json()
    assert plain["gwet_ac1"] is None and "positive_agreement" not in plain
    declared = agreement_summary(table, labels=["0", "1"]).to_json()
    assert declared["categories"] == ["0", "1"]
    assert declared["gwet_ac1"] == pytest.approx(1.0)  # P_e = 0 with two labels
    assert declared["fleiss_kappa"] is None and declared["negative_agreement"] == 1.0
    assert declared["positive_agreement"] is None and declared["undefined"]["positive_agreement"]


def test_ordinal_text_labels_warn_that_the_order_is_alphabetical() -> None:
    table = RatingsTable.from_codes([[0, 1], [1, 2], [2, 2]], categories=["high", "low", "medium"])
    notes = agreement_summary(table, level="ordinal").notes
    assert any("alphabetically" in n and "high < low < medium" in n for n in notes)
    assert not any("alphabetically" in n for n in agreement_summary(table, level="nominal").notes)


def test_two_raters_with_identical_answers_on_every_item_are_flagged_as_duplicated() -> None:
    # DialSummEval's coherence raters 2 and 3 agree on every item (κ = 1.0): a copied column, not agreement.
    rng = np.random.default_rng(7)
    first = rng.integers(0, 5, size=40)
    codes = np.column_stack([rng.integers(0, 5, size=40), first, first, rng.integers(0, 5, size=40)])
    table = RatingsTable.from_codes(codes, categories=["1", "2", "3", "4", "5"])
    summary = agreement_summary(table, level="ordinal")
    a2, a3 = table.annotators[1], table.annotators[2]
    duplicated = [n for n in summary.notes if "identical" in n]
    assert len(duplicated) == 1 and a2 in duplicated[0] and a3 in duplicated[0] and "40" in duplicated[0]
    assert summary.to_json()["duplicated_raters"] == [[a2, a3, 40]]
    independent = RatingsTable.from_codes(np.delete(codes, 2, axis=1), categories=["1", "2", "3", "4", "5"])
    assert not [n for n in agreement_summary(independent).notes if "identical" in n]
    assert agreement_summary(independent).to_json()["duplicated_raters"] == []
