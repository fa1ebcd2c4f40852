"""The truth model: crowd-kit's Dawid–Skene on hard labels, soft sources, and what gold anchors do."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from backend.review.truth_model import TruthModel

LABELS = ["a", "b", "c"]


def _crowd(seed: int, n: int = 150, accuracy=(0.9, 0.75, 0.6, 0.5)) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    truth, answers = {}, {}
    for i in range(n):
        t = LABELS[rng.integers(3)]
        truth[f"i{i}"] = t
        answers[f"i{i}"] = {f"w{w}": (t if rng.random() < acc else LABELS[rng.integers(3)])
                            for w, acc in enumerate(accuracy) if rng.random() < 0.85}
    return truth, answers


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_labels_without_anchors_give_crowd_kits_posteriors(seed):
    from crowdkit.aggregation import DawidSkene

    _truth, answers = _crowd(seed)
    frame = pd.DataFrame([(i, w, lab) for i, by in answers.items() for w, lab in by.items()],
                         columns=["task", "worker", "label"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = DawidSkene(n_iter=100).fit(frame)
    ours = TruthModel(LABELS).fit(answers).predict_proba()
    assert set(ours) == set(reference.probas_.index)
    worst = max(abs(float(reference.probas_.loc[i, lab]) - ours[i][lab]) for i in ours for lab in LABELS)
    assert worst < 1e-6


def test_a_soft_one_hot_source_is_the_same_as_a_hard_one():
    _truth, answers = _crowd(3)
    soft = {i: {w: {lab: 1.0} for w, lab in by.items()} for i, by in answers.items()}
    hard = TruthModel(LABELS).fit(answers).probas_
    assert TruthModel(LABELS).fit(soft).probas_ == pytest.approx(hard)


def test_anchors_clamp_items_and_pull_the_confusion_towards_the_gold():
    # Three colluding sources say "c" for every "b" item; one honest source is right 80% of the time.
    # Without gold, Dawid–Skene believes the majority (b items look like c, the colluders look accurate);
    # gold on some items shows who is right: the honest source's accuracy rises, the colluders' falls,
    # and the items nobody reviewed are labelled better.
    rng = np.random.default_rng(4)
    truth, answers = {}, {}
    for i in range(200):
        t = LABELS[rng.integers(3)]
        truth[f"i{i}"] = t
        by = {f"colluder{k}": ("c" if t == "b" else t) for k in range(3)}
        by["honest"] = t if rng.random() < 0.8 else LABELS[rng.integers(3)]
        answers[f"i{i}"] = by
    gold = dict(list(truth.items())[:60])
    free = TruthModel(LABELS).fit(answers)
    anchored = TruthModel(LABELS).fit(answers, anchors=gold)
    assert all(anchored.predict_proba()[i][g] == 1.0 for i, g in gold.items())
    rest = [i for i in truth if i not in gold]
    right_free = np.mean([free.predict()[i] == truth[i] for i in rest])
    right_anchored = np.mean([anchored.predict()[i] == truth[i] for i in rest])
    assert right_anchored > right_free + 0.1  # the unreviewed b items are recovered
    acc = {q.source: q.accuracy for q in anchored.source_quality()}
    acc_free = {q.source: q.accuracy for q in free.source_quality()}
    assert acc["honest"] > acc_free["honest"]
    assert acc["colluder0"] < acc_free["colluder0"]


def test_source_quality_orders_the_sources_by_their_real_accuracy():
    _truth, answers = _crowd(5, n=300)
    quality = {q.source: q for q in TruthModel(LABELS).fit(answers).source_quality()}
    assert quality["w0"].accuracy > quality["w1"].accuracy > quality["w3"].accuracy
    for q in quality.values():
        assert 0 <= q.low <= q.accuracy <= q.high <= 1
        assert all(abs(sum(row.values()) - 1) < 1e-9 for row in q.confusion.values())


def test_a_list_counts_each_label_of_a_pooled_source():
    model = TruthModel(LABELS).fit({"x": {"crowd": ["a", "a", "b"]}, "y": {"crowd": ["c", "c", "c"]}})
    assert {q.source: q.n for q in model.source_quality()} == {"crowd": 6}


def test_bad_observations_are_skipped_and_bad_options_refused():
    model = TruthModel(LABELS).fit({"x": {"s": "zzz", "t": None, "u": {}}, "y": {"s": "a", "t": {"b": 1.0}}})
    assert model.items_ == ["y"]
    assert TruthModel(LABELS).fit({}).predict_proba() == {}
    with pytest.raises(ValueError):
        TruthModel(["a"])
    with pytest.raises(ValueError):
        TruthModel(LABELS, n_iter=0)
