"""k-class statistics on planted data, against statsmodels / scikit-learn / scipy."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import f1_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa as sm_fleiss

from stats_cli.stats.aggregate import aggregate
from stats_cli.stats.agreement import fleiss_kappa
from stats_cli.stats.confusion import category_agreement, label_confusion, per_class_errors
from stats_cli.stats.expected import expected_scores
from stats_cli.stats.expected_kclass import expected_macro_f1
from stats_cli.stats.ratings import ratings_from_long
from stats_cli.sources.rows import Row
from stats_cli.stats.stratify import stratify

LABELS = ("Positive", "Negative", "Neutral", "Mixed / unclear")


def planted_ratings(n_items: int = 60, n_raters: int = 3, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(LABELS), n_items)
    noise = rng.random((n_items, n_raters)) < 0.25
    other = rng.integers(0, len(LABELS), (n_items, n_raters))
    return np.where(noise, other, truth[:, None])


def table_of(codes: np.ndarray):
    rows = [Row(0, {"item": f"i{i}", "annotator": f"r{j}", "label": LABELS[c]})
            for i, line in enumerate(codes) for j, c in enumerate(line)]
    return ratings_from_long(rows)


def test_multi_class_fleiss_kappa_matches_statsmodels():
    codes = planted_ratings()
    table = table_of(codes)
    assert fleiss_kappa(table.counts()).value == pytest.approx(sm_fleiss(aggregate_raters(codes)[0]))


def test_category_agreement_is_2a_over_2a_b_c_for_two_raters():
    codes = planted_ratings(n_raters=2, seed=5)
    agreement = category_agreement(table_of(codes), LABELS)
    for k, label in enumerate(LABELS):
        a = int(((codes[:, 0] == k) & (codes[:, 1] == k)).sum())
        b_c = int(((codes[:, 0] == k) ^ (codes[:, 1] == k)).sum())
        assert agreement[label] == pytest.approx(2 * a / (2 * a + b_c))
    assert category_agreement(table_of(codes[:, :2]), (*LABELS, "never used"))["never used"] is None


def test_majority_for_k_classes_matches_a_direct_count():
    codes = planted_ratings()
    agg = {a.item: a for a in aggregate(table_of(codes), method="majority")}
    for i, line in enumerate(codes):
        counts = Counter(LABELS[c] for c in line)
        top = max(counts.values())
        item = agg[f"i{i}"]
        assert counts[item.label] == top and item.p_d == pytest.approx(top / len(line))
        assert item.tie == (sum(v == top for v in counts.values()) > 1)


def test_confusion_and_per_class_clopper_pearson():
    original = ["Positive"] * 10 + ["Negative"] * 6 + ["Neutral"] * 3
    gold = ["Positive"] * 7 + ["Neutral"] * 3 + ["Negative"] * 4 + ["Positive"] * 2 + ["Neutral"] * 3
    matrix = label_confusion(original, gold, LABELS)
    assert matrix[0].tolist() == [7, 0, 3, 0] and matrix[1].tolist() == [2, 4, 0, 0]
    rows = {r.label: r for r in per_class_errors(original, gold, LABELS)}
    for label, n, k in (("Positive", 10, 3), ("Negative", 6, 2), ("Neutral", 3, 0)):
        ci = binomtest(k, n).proportion_ci(method="exact")
        assert (rows[label].reviewed, rows[label].errors) == (n, k)
        assert (rows[label].cp_low, rows[label].cp_high) == pytest.approx((ci.low, ci.high))
    assert rows["Mixed / unclear"].reviewed == 0 and rows["Mixed / unclear"].cp_low is None


def test_expected_macro_f1_reduces_to_elangovan_for_two_classes_and_matches_a_simulation():
    truth = ["a"] * 30 + ["b"] * 70
    binary = [expected_scores(0.8, m).f1 for m in (0.3, 0.7)]
    assert expected_macro_f1(0.8, truth) == pytest.approx(sum(binary) / 2)
    rng = np.random.default_rng(0)
    k, p = 4, 0.7
    y = rng.choice(k, size=200_000, p=[0.4, 0.3, 0.2, 0.1])
    follow = rng.random(y.size) < p
    shift = rng.integers(1, k, y.size)  # a wrong answer: one of the k-1 other labels, evenly
    pred = np.where(follow, y, (y + shift) % k)
    simulated = f1_score(y, pred, average="macro")
    assert expected_macro_f1(p, list(y), n_classes=k) == pytest.approx(simulated, abs=0.01)


def test_stratify_gives_a_k_class_expected_f1():
    truth = ["x", "y", "z"] * 4
    strata, pos = stratify(truth, truth, [0.67] * 6 + [1.0] * 6)
    assert pos is None
    assert all(s.expected_f1 is not None for s in strata[:-1])


def test_expected_macro_f1_is_over_the_tasks_label_set_not_the_classes_present():
    # issue 22, finding 6: a stratum holding 2 of the task's 4 labels; the labeller's wrong answers go to
    # any of the other 3 task labels, so absent labels get predictions too (F1 0 in sklearn's macro).
    rng = np.random.default_rng(1)
    task, p = ["a", "b", "c", "d"], 0.6
    y = rng.choice(2, size=200_000, p=[0.7, 0.3])
    pred = np.where(rng.random(y.size) < p, y, (y + rng.integers(1, 4, y.size)) % 4)
    simulated = f1_score(y, pred, average="macro")
    truth = [task[i] for i in y]
    assert expected_macro_f1(p, truth, labels=task) == pytest.approx(simulated, abs=0.01)
    assert abs(expected_macro_f1(p, truth) - simulated) > 0.1  # k from the classes present: the old figure
