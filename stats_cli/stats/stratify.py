"""Scores stratified by ground-truth certainty p_d, each beside its expected value (Elangovan 2026).

An overall F1 mixes items everyone agrees on with items where even experts split. Elangovan et al.
show that comparisons are only reliable within p_d strata, and that the coin-toss expectation
(:mod:`stats_cli.stats.expected`) says what a perfect majority-follower would score there. Following
the paper, the expectation for the p_d = 1 stratum uses p_d = 0.97 (``certain_as``): a labeller
who always follows the majority is not a useful reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from sklearn.metrics import accuracy_score, f1_score

from stats_cli.stats.agreement_summary import pick_positive
from stats_cli.stats.expected_kclass import expected_macro_f1
from stats_cli.stats.expected import expected_scores
from stats_cli.stats.labels import normalize_label, sort_labels

__all__ = ["Stratum", "pooled_expected_f1", "stratify"]


@dataclass(frozen=True)
class Stratum:
    """Observed and expected scores of the items whose p_d rounds to ``p_d`` (None = all items)."""

    p_d: float | None
    n: int
    m: float | None
    accuracy: float | None
    f1: float | None
    expected_accuracy: float | None
    expected_f1: float | None

    @property
    def name(self) -> str:
        return "all" if self.p_d is None else f"{self.p_d:g}"

    def to_json(self) -> dict[str, Any]:
        return {
            "p_d": self.name if self.p_d is None else self.p_d,
            "n": self.n,
            "m": self.m,
            "accuracy": self.accuracy,
            "f1": self.f1,
            "expected_accuracy": self.expected_accuracy,
            "expected_f1": self.expected_f1,
        }


def stratify(
    truth: Sequence[Any],
    prediction: Sequence[Any],
    p_d: Sequence[float],
    *,
    positive: str | None = None,
    decimals: int = 2,
    certain_as: float = 0.97,
    label_set: Sequence[str] | None = None,
) -> tuple[list[Stratum], str | None]:
    """Per-stratum accuracy and F1 (scikit-learn) with sample size, positive ratio m and expectation.

    Returns the strata in increasing p_d followed by an ``all`` row, and the positive label used
    (None when the labels are not binary: then F1 is macro-averaged and its expectation is
    :func:`stats_cli.stats.expected_kclass.expected_macro_f1`).
    The ``all`` row's expected accuracy is the n-weighted mean of the strata's; its expected F1 pools
    the strata's expected TP, FP and FN counts (Elangovan's *All* row), because a mean of F1s is
    not the F1 of the union. ``label_set`` is the task's (the control's) labels; without it, every label
    the data holds anywhere (truth or prediction). With more than two, F1 is macro and both it and its
    expectation run over that whole set, never over the classes one stratum happens to hold: a stratum of
    30 % "x" and 70 % "y" at p_d = 0.7 expects 0.674 over its own two labels but 0.492 in a task of three,
    because a labeller who leaves the majority may answer the third label too (issue 31). The observed
    macro F1 is taken over the same set, so a label the stratum lacks weighs on both alike.
    """
    if not len(truth) == len(prediction) == len(p_d):
        raise ValueError("truth, prediction and p_d must have the same length")
    if not 0.0 < certain_as <= 1.0:
        raise ValueError("certain_as must be in (0, 1]")
    y_true = np.array([normalize_label(x) for x in truth], dtype=object)
    y_pred = np.array([normalize_label(x) for x in prediction], dtype=object)
    certainty = np.round(np.asarray(p_d, dtype=float), decimals)
    if len(certainty) and (np.isnan(certainty).any() or certainty.min() < 0 or certainty.max() > 1):
        raise ValueError("p_d values must be in [0, 1]")
    labels = sort_labels([x for x in y_true if x is not None] + [x for x in y_pred if x is not None])
    declared = [lab for lab in (normalize_label(x) for x in label_set or ()) if lab is not None]
    label_set = sort_labels([*declared, *labels])  # a label outside the declared set is kept, not dropped
    k_class = len(label_set) > 2
    pos = pick_positive(label_set, positive) if label_set and not k_class else None
    if positive is not None and pos is None:
        raise ValueError(f"positive label given but the label set has {len(label_set)} labels, not two")
    strata = [
        _stratum(float(level), y_true[certainty == level], y_pred[certainty == level], pos, certain_as, label_set)
        for level in np.unique(certainty)
    ]
    overall = _stratum(None, y_true, y_pred, pos, certain_as, label_set)
    if strata and pos is not None:
        weights = np.array([s.n for s in strata], dtype=float)
        overall = Stratum(
            p_d=None, n=overall.n, m=overall.m, accuracy=overall.accuracy, f1=overall.f1,
            expected_accuracy=float(np.average([s.expected_accuracy for s in strata], weights=weights)),
            expected_f1=pooled_expected_f1([(s.n, s.m, _follow_rate(s.p_d, certain_as)) for s in strata]),
        )
    return strata + [overall], pos


def _follow_rate(level: float | None, certain_as: float) -> float:
    """The p_d a majority-follower is credited with in a stratum (``certain_as`` for p_d = 1)."""
    return certain_as if level is not None and level >= 1.0 else float(level or 0.0)


def pooled_expected_f1(strata: Sequence[tuple[int, float | None, float]]) -> float | None:
    """F1 from expected counts summed over strata of (n, m, p_d): TP = n·m·p, FP = n(1−m)(1−p), FN = n·m(1−p)."""
    tp = fp = fn = 0.0
    for n, m, p in strata:
        if not n or m is None:
            continue
        tp += n * m * p
        fp += n * (1.0 - m) * (1.0 - p)
        fn += n * m * (1.0 - p)
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn > 0 else None


def _stratum(level: float | None, y_true: np.ndarray, y_pred: np.ndarray, pos: str | None,
             certain_as: float, label_set: Sequence[str] | None = None) -> Stratum:
    n = len(y_true)
    accuracy = float(accuracy_score(list(y_true), list(y_pred))) if n else None  # no items: no score, not 0
    if pos is None:
        f1 = float(f1_score(list(y_true), list(y_pred), labels=list(label_set) if label_set else None,
                            average="macro", zero_division=0)) if n else None
        expected_accuracy = certain_as if level is not None and level >= 1.0 else level
        expected_f1 = (expected_macro_f1(expected_accuracy, list(y_true), labels=label_set)
                       if expected_accuracy is not None else None)
        return Stratum(level, n, None, accuracy, f1, expected_accuracy, expected_f1)
    m = float((y_true == pos).mean()) if n else None
    f1 = float(f1_score(list(y_true), list(y_pred), pos_label=pos, average="binary", zero_division=0)) if n else None
    if level is None:
        return Stratum(None, n, m, accuracy, f1, None, None)
    expect = expected_scores(certain_as if level >= 1.0 else level, m)
    return Stratum(level, n, m, accuracy, f1, expect.accuracy, expect.f1)
