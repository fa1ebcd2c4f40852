"""Set statistics against reference implementations on planted data.

MASI and Jaccard distances and Krippendorff's alpha over sets against nltk (``masi_distance``,
``jaccard_distance``, ``AnnotationTask.alpha``); Hamming agreement and exact match against scikit-learn
(``hamming_loss``, ``accuracy_score`` on indicator matrices); per-label kappa against ``cohen_kappa_score``;
per-label error bounds against scipy's exact binomial interval.
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance as nltk_jaccard, masi_distance as nltk_masi
from scipy.stats import binomtest
from sklearn.metrics import accuracy_score, cohen_kappa_score, hamming_loss
from sklearn.preprocessing import MultiLabelBinarizer

from stats_cli.stats.label_sets import (exact_match_agreement, hamming_agreement, jaccard_distance, label_errors,
                                  masi_distance, per_label_agreement, set_alpha)

LABELS = ("A", "B", "C", "D", "E")


def planted(n_items: int, raters: tuple[str, ...], *, seed: int, noise: float = 0.3):
    """Each item has a true set; each rater flips one random label with probability ``noise``."""
    rng = random.Random(seed)
    out = {}
    for i in range(n_items):
        truth = {lab for lab in LABELS if rng.random() < 0.35}
        out[f"i{i}"] = {}
        for r in raters:
            chosen = set(truth)
            if rng.random() < noise:
                chosen ^= {rng.choice(LABELS)}
            out[f"i{i}"][r] = frozenset(chosen)
    return out


def all_sets():
    return [frozenset(c) for k in range(len(LABELS) + 1) for c in combinations(LABELS, k)]


def test_masi_and_jaccard_match_nltk_on_every_pair_of_sets():
    for a in all_sets():
        for b in all_sets():
            if not a and not b:
                assert masi_distance(a, b) == jaccard_distance(a, b) == 0.0  # nltk divides by zero here
                continue
            assert masi_distance(a, b) == pytest.approx(nltk_masi(set(a), set(b)))
            assert jaccard_distance(a, b) == pytest.approx(nltk_jaccard(set(a), set(b)))


@pytest.mark.parametrize(("raters", "seed"), [(("x", "y"), 1), (("x", "y", "z"), 2)])
@pytest.mark.parametrize("distance", ["masi", "jaccard"])
def test_alpha_over_sets_matches_nltk(raters, seed, distance):
    answers = planted(40, raters, seed=seed)
    for item in list(answers)[::7]:  # some items rated by one rater only: not pairable
        answers[item] = {raters[0]: answers[item][raters[0]]}
    ref_items = {i: by for i, by in answers.items() if len(by) >= 2}
    reference = nltk_masi if distance == "masi" else nltk_jaccard

    def both_empty_is_equal(a, b):  # nltk divides by zero on two empty sets; they are identical: 0
        return 0.0 if not a and not b else reference(a, b)

    task = AnnotationTask(data=[(r, i, s) for i, by in ref_items.items() for r, s in by.items()],
                          distance=both_empty_is_equal)
    assert set_alpha(answers, distance=distance) == pytest.approx(task.alpha(), abs=1e-9)


def test_exact_match_and_hamming_agreement_match_scikit_learn_for_two_raters():
    answers = planted(60, ("x", "y"), seed=3)
    binarizer = MultiLabelBinarizer(classes=list(LABELS))
    x = binarizer.fit_transform([answers[i]["x"] for i in answers])
    y = binarizer.transform([answers[i]["y"] for i in answers])
    exact, pairs = exact_match_agreement(answers)
    hamming, _ = hamming_agreement(answers, LABELS)
    assert pairs == 60
    assert exact == pytest.approx(accuracy_score(x, y))  # subset accuracy = exact match
    assert hamming == pytest.approx(1 - hamming_loss(x, y))


def test_per_label_kappa_matches_cohen_and_a_never_used_label_says_so():
    answers = planted(50, ("x", "y"), seed=4, noise=0.5)
    got = per_label_agreement(answers, LABELS)
    for lab in LABELS:
        x = [lab in answers[i]["x"] for i in answers]
        y = [lab in answers[i]["y"] for i in answers]
        assert got[lab]["kappa"] == pytest.approx(cohen_kappa_score(x, y))
        a = sum(p and q for p, q in zip(x, y))
        b_c = sum(p != q for p, q in zip(x, y))
        assert got[lab]["positive_agreement"] == pytest.approx(2 * a / (2 * a + b_c))
        assert got[lab]["n_items"] == 50


def test_label_errors_count_added_and_dropped_labels_with_exact_bounds():
    rng = random.Random(5)
    pairs = []
    for _ in range(30):
        gold = frozenset(lab for lab in LABELS if rng.random() < 0.4)
        original = set(gold)
        if rng.random() < 0.4:
            original ^= {rng.choice(LABELS)}
        pairs.append((frozenset(original), gold))
    rows = {r.label: r for r in label_errors(pairs, LABELS)}
    for lab in LABELS:
        added = sum(lab in g and lab not in o for o, g in pairs)
        dropped = sum(lab in o and lab not in g for o, g in pairs)
        row = rows[lab]
        assert (row.reviewed, row.added, row.dropped, row.errors) == (30, added, dropped, added + dropped)
        ci = binomtest(added + dropped, 30).proportion_ci(method="exact")
        assert (row.cp_low, row.cp_high) == pytest.approx((ci.low, ci.high))
    assert sum(r.errors for r in rows.values()) == sum(len(o ^ g) for o, g in pairs)
    assert label_errors([], LABELS)[0].cp_low is None


def test_no_pairable_item_or_no_variation_gives_no_alpha():
    assert set_alpha({"i": {"x": frozenset("A")}}) is None
    assert set_alpha({"i": {"x": frozenset("A"), "y": frozenset("A")}}) is None
    assert exact_match_agreement({}) == (None, 0) and hamming_agreement({}, LABELS) == (None, 0)
    assert np.isfinite(set_alpha(planted(10, ("x", "y"), seed=6)))
