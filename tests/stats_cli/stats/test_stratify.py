"""Stratification by p_d with expectations beside each stratum."""

from __future__ import annotations

import pytest
from sklearn.metrics import f1_score

from stats_cli.stats.expected import expected_scores
from stats_cli.stats.stratify import stratify


def test_strata_scores_and_expectations() -> None:
    truth = ["1", "0", "1", "1", "0", "0", "1", "0"]
    pred = [1, 0, 0, 1, 1, 0, 1, 0]
    p_d = [0.6, 0.6, 0.6, 0.6, 1.0, 1.0, 1.0, 1.0]
    strata, positive = stratify(truth, pred, p_d)
    assert positive == "1"
    low, high, overall = strata
    assert (low.p_d, low.n, low.m) == (0.6, 4, 0.75)
    assert low.accuracy == pytest.approx(0.75)
    assert low.f1 == pytest.approx(f1_score([1, 0, 1, 1], [1, 0, 0, 1]))
    assert low.expected_f1 == pytest.approx(expected_scores(0.6, 0.75).f1)
    # p_d = 1 uses the paper's 0.97 stand-in for the expectation
    assert high.expected_accuracy == pytest.approx(0.97)
    assert high.expected_f1 == pytest.approx(expected_scores(0.97, 0.25).f1)
    assert overall.name == "all" and overall.n == 8
    # Pooled expected counts, not the mean of the strata's F1 (Elangovan's All row).
    tp = 4 * 0.75 * 0.6 + 4 * 0.25 * 0.97
    fp = 4 * 0.25 * 0.4 + 4 * 0.75 * 0.03
    fn = 4 * 0.75 * 0.4 + 4 * 0.25 * 0.03
    assert overall.expected_f1 == pytest.approx(2 * tp / (2 * tp + fp + fn))


def test_all_row_expected_f1_pools_counts_atelectasis() -> None:
    # Elangovan et al., Atelectasis: strata p_d 0.6 / 0.8 / 1.0 with S 130 / 140 / 230 and
    # m 0.500 / 0.400 / 0.139; the paper's All row gives expected F1 0.73 (and accuracy 0.83).
    # The n-weighted mean of the strata's F1 would say 0.783.
    sizes, positives, levels = (130, 140, 230), (65, 56, 32), (0.6, 0.8, 1.0)
    truth, p_d = [], []
    for n, pos, level in zip(sizes, positives, levels):
        truth += ["1"] * pos + ["0"] * (n - pos)
        p_d += [level] * n
    strata, _ = stratify(truth, truth, p_d)
    overall = strata[-1]
    assert [round(s.m, 3) for s in strata[:3]] == [0.5, 0.4, 0.139]
    mean_of_f1 = sum(s.n * s.expected_f1 for s in strata[:3]) / 500
    assert mean_of_f1 == pytest.approx(0.783, abs=0.001)
    assert round(overall.expected_f1, 2) == 0.73
    assert round(overall.expected_accuracy, 2) == 0.83


def test_multiclass_uses_macro_f1_with_the_k_class_expectation() -> None:
    strata, positive = stratify(["a", "b", "c"], ["a", "b", "b"], [1, 1, 1])
    # three classes, one item each, p_d = 1 counted as 0.97: every class has F1 0.97 (expected_kclass)
    assert positive is None and strata[0].expected_f1 == pytest.approx(0.97)
    with pytest.raises(ValueError):
        stratify(["a", "b", "c"], ["a", "b", "b"], [1, 1, 1], positive="a")


def test_bad_p_d_raises() -> None:
    with pytest.raises(ValueError):
        stratify(["1"], ["1"], [1.5])


def test_multiclass_certain_stratum_expects_certain_as_like_binary() -> None:
    # the p_d = 1 stratum's expectation uses 0.97 (Elangovan) whatever the number of labels
    strata, _ = stratify(["a", "b", "c", "a"], ["a", "b", "b", "a"], [1, 1, 0.5, 0.5])
    half, certain, overall = strata
    assert half.expected_accuracy == 0.5
    assert certain.expected_accuracy == pytest.approx(0.97)
    assert stratify(["a", "b", "c"], ["a", "b", "b"], [1, 1, 1], certain_as=0.9)[0][0].expected_accuracy == 0.9


def test_no_items_gives_no_score_rather_than_zero() -> None:
    strata, positive = stratify([], [], [])
    assert positive is None and [s.name for s in strata] == ["all"]
    assert strata[0].n == 0 and strata[0].accuracy is None and strata[0].f1 is None


def test_a_strata_expected_macro_f1_runs_over_the_label_set_not_the_labels_it_holds():
    # issue 31: a stratum of 3 "x" and 7 "y" at p_d = 0.7 in a task of three labels. Over its own two
    # labels the expectation was 0.6745; a labeller who leaves the majority may answer "z" too: 0.4921.
    from stats_cli.stats.expected_kclass import expected_macro_f1

    truth = ["x"] * 3 + ["y"] * 7 + ["z"] * 2
    p_d = [0.7] * 10 + [1.0] * 2
    assert expected_macro_f1(0.7, truth[:10]) == pytest.approx(0.6745, abs=5e-5)  # the former figure
    for label_set in (["x", "y", "z"], None):  # declared, or every label the data holds anywhere
        strata, positive = stratify(truth, truth, p_d, label_set=label_set)
        assert positive is None and strata[0].p_d == 0.7
        assert strata[0].expected_f1 == pytest.approx(0.4921, abs=5e-5)
        # the observed macro F1 runs over the same set: "z", absent from the stratum, scores 0 in both
        assert strata[0].f1 == pytest.approx(f1_score(truth[:10], truth[:10], labels=["x", "y", "z"],
                                                      average="macro", zero_division=0)) == pytest.approx(2 / 3)
    # a binary control whose stratum holds one label keeps the control's positive label
    strata, positive = stratify(["0", "0"], ["0", "1"], [1, 1], label_set=["0", "1"])
    assert positive == "1" and strata[0].m == 0.0
