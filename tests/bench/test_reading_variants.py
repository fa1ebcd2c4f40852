"""bench/bench_reading_variants.py: each variant of ``given`` does what its name says, and the swap is undone.

The variants are measured against the product's default in docs/judges.md ("Other readings of the same answers");
these check their arithmetic on answers whose lean is known, and that the rules' table counts the bars.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from backend.scoring import prior_shift
from tests.support.bench_module import load_bench_module


@pytest.fixture(scope="module")
def variants():
    return load_bench_module("bench_reading_variants")


def _leaning(n: int = 200, seed: int = 0):
    """A judge that puts most of its mass on class 0 whatever the item; labels half 0, a quarter each of 1 and 2."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 1.0, (n, 3))
    logits[:, 0] += 1.5
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True), np.array([0] * (n // 2) + [1] * (n // 4) + [2] * (n // 4))


def test_power_one_is_the_products_given_and_half_moves_part_of_the_way(variants):
    p, labels = _leaning()
    product = prior_shift.given_prior(p, labels)
    assert np.allclose(variants.power(1.0)(p, labels).posteriors, product.posteriors)
    half = variants.power(0.5)(p, labels).posteriors.mean(axis=0)
    assert p.mean(axis=0)[0] > half[0] > product.posteriors.mean(axis=0)[0]


def test_iterated_brings_the_mean_answer_to_the_labels_shares(variants):
    p, labels = _leaning()
    target = (np.bincount(labels, minlength=3) + 1.0) / (labels.size + 3)
    assert not np.allclose(prior_shift.given_prior(p, labels).posteriors.mean(axis=0), target, atol=1e-3)
    assert np.allclose(variants.iterated(p, labels).posteriors.mean(axis=0), target, atol=1e-6)


def test_counts_makes_each_class_the_top_answer_as_often_as_its_labels(variants):
    p, labels = _leaning()
    assert np.bincount(p.argmax(axis=1), minlength=3)[0] > 140  # the lean: class 0 on top for 100 labels of 200
    top = variants.counts(p, labels).posteriors.argmax(axis=1)
    assert np.all(np.abs(np.bincount(top, minlength=3) - np.bincount(labels, minlength=3)) <= 1)


def test_the_swap_of_given_is_undone_even_on_error(variants):
    kept = prior_shift.given_prior
    with pytest.raises(RuntimeError):
        with variants.given_as(variants.counts):
            assert prior_shift.given_prior is variants.counts
            raise RuntimeError("a run failed")
    assert prior_shift.given_prior is kept


def test_the_rules_table_counts_each_bar_for_the_reading_each_rule_picks(variants, tmp_path):
    def reading(accuracy, ratio, precision, recall, within):
        return {"accuracy": accuracy, "ratio_min": ratio[0], "ratio_max": ratio[1], "ap": 0.5, "flagged": 4,
                "flag_precision": precision, "flag_recall": recall, "within_labels": within}

    names = list(variants.VARIANTS)
    run = {"run": "x", "llm_calls": 0,
           "agree": {"none": 20, "fitted": 18, **{v: 22 for v in names}},  # given and its variants agree most
           "readings": {"none": reading(0.7, (0.4, 1.3), 0.6, 0.6, False),  # flags only
                        "fitted": reading(0.6, (0.9, 1.1), 0.6, 0.6, True),  # both
                        **{v: reading(0.8, (0.8, 1.2), 0.4, 0.6, True) for v in names}}}  # ratio only
    path = tmp_path / "rv.jsonl"
    path.write_text(json.dumps(run) + "\n", "utf-8")
    rows = variants.table(path).splitlines()
    assert rows[2] == "| auto (the default) | 1 | 0 | 0 | 0.800 |"
    assert rows[-1] == "| the average always (none) | 0 | 1 | 0 | 0.700 |"
