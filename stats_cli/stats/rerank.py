"""How model rankings change when scored on gold instead of original labels (Nahum et al. 2024, Table 4).

Label errors in a test set can reorder models: in the paper DeBERTa-v3 falls from 2nd to 8th by
ROC AUC once the labels are corrected. For each model this computes ROC AUC, F1 and accuracy
(scikit-learn) against the original and the gold labels, ranks models by ROC AUC on each, and
reports the rank change (positive = moved up) and the relative change in percent.

Which F1: ``f1`` is the F1 of the positive class (the one Table 4 reports for label-error
detection); ``f1_weighted`` is the support-weighted mean of both classes' F1 (scikit-learn
``average="weighted"``), the score Nahum App. B uses to compare annotation approaches. With
skewed labels the two can move in opposite directions, so both are shown.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy.stats import rankdata
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

from stats_cli.stats.coefficient import Coefficient, defined, undefined
from stats_cli.stats.labels import normalize_label

__all__ = ["METRICS", "METRIC_NAMES", "ModelScores", "rerank", "relative_change"]

METRICS = ("roc_auc", "f1", "f1_weighted", "accuracy")
#: how each metric is called in tables
METRIC_NAMES = {"roc_auc": "ROC AUC", "f1": "F1 (positive class)", "f1_weighted": "weighted F1 (App. B)",
                "accuracy": "accuracy"}


@dataclass(frozen=True)
class ModelScores:
    """One model's metrics on original and gold labels and its ROC-AUC rank on each."""

    model: str
    n: int
    original: dict[str, Coefficient]
    gold: dict[str, Coefficient]
    rank_original: int | None = None
    rank_gold: int | None = None

    @property
    def rank_change(self) -> int | None:
        if self.rank_original is None or self.rank_gold is None:
            return None
        return self.rank_original - self.rank_gold

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model, "n": self.n,
                               "rank_original": self.rank_original, "rank_gold": self.rank_gold,
                               "rank_change": self.rank_change}
        for metric in METRICS:
            a, b = self.original[metric].value, self.gold[metric].value
            out[f"{metric}_original"] = a
            out[f"{metric}_gold"] = b
            out[f"{metric}_change_pct"] = relative_change(a, b)
        out["undefined"] = {f"{m}_{side}": c.reason for side, d in (("original", self.original), ("gold", self.gold))
                            for m, c in d.items() if c.value is None}
        return out


def relative_change(before: float | None, after: float | None) -> float | None:
    """(after − before) / before × 100, as Table 4's parenthesised changes; None if undefined."""
    if before is None or after is None or before == 0:
        return None
    return (after - before) / before * 100.0


def _metrics(truth: np.ndarray, score: np.ndarray, pred: np.ndarray, positive: str) -> dict[str, Coefficient]:
    y = truth == positive
    yhat = pred == positive
    if y.all() or not y.any():
        auc = undefined("ROC AUC undefined: only one class in the labels")
    elif np.isnan(score).any():
        auc = undefined("ROC AUC needs a score for every item")
    else:
        auc = defined(roc_auc_score(y, score))
    return {
        "roc_auc": auc,
        "f1": defined(f1_score(y, yhat, zero_division=0)),
        "f1_weighted": defined(f1_score(y, yhat, average="weighted", zero_division=0)),
        "accuracy": defined(accuracy_score(y, yhat)),
    }


def rerank(
    model: Sequence[str],
    score: Sequence[float | None],
    prediction: Sequence[Any] | None,
    original: Sequence[Any],
    gold: Sequence[Any],
    *,
    positive: str = "1",
    threshold: float = 0.5,
) -> list[ModelScores]:
    """Per-model scores on original vs gold labels, ranked by ROC AUC (1 = best; ties share a rank).

    ``score`` is the model's probability (or any monotone score) for the ``positive`` label;
    without ``prediction`` the prediction is ``score ≥ threshold``.
    """
    n = len(model)
    if not len(score) == len(original) == len(gold) == n or (prediction is not None and len(prediction) != n):
        raise ValueError("all columns must have the same length")
    positive = normalize_label(positive) or "1"
    negative_fallback = "\0not-positive"
    scores = np.array([np.nan if s is None else float(s) for s in score], dtype=float)
    if prediction is None:
        preds = np.where(scores >= threshold, positive, negative_fallback).astype(object)
    else:
        preds = np.array([normalize_label(p) for p in prediction], dtype=object)
    orig = np.array([normalize_label(x) for x in original], dtype=object)
    true = np.array([normalize_label(x) for x in gold], dtype=object)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(model):
        groups[str(name)].append(i)
    rows = [
        ModelScores(name, len(idx), _metrics(orig[idx], scores[idx], preds[idx], positive),
                    _metrics(true[idx], scores[idx], preds[idx], positive))
        for name, idx in groups.items()
    ]
    rank_o = _ranks([r.original["roc_auc"].value for r in rows])
    rank_g = _ranks([r.gold["roc_auc"].value for r in rows])
    ranked = [ModelScores(r.model, r.n, r.original, r.gold, a, b) for r, a, b in zip(rows, rank_o, rank_g)]
    return sorted(ranked, key=lambda r: (r.rank_gold is None, r.rank_gold or 0, r.model))


def _ranks(values: list[float | None]) -> list[int | None]:
    known = [i for i, v in enumerate(values) if v is not None]
    out: list[int | None] = [None] * len(values)
    if known:
        ranks = rankdata([-values[i] for i in known], method="min")  # type: ignore[operator]
        for i, r in zip(known, ranks):
            out[i] = int(r)
    return out
