"""P(label wrong | ensemble output), learnt from the experts' verdicts on the control sample.

The ensemble's confidence is not a probability that the label is wrong: a tiny local judge is confident
and at chance. Once the control sample (a random, design-weighted sample reviewed by the experts) holds
enough reviewed items, this module fits that probability (isotonic or logistic regression, weighted by the
design weights so the fit describes the population, not the sample), reports its cross-validated quality
(the control items' probabilities come from folds that did not see them), a precision-by-threshold table,
and gives the unreviewed suspects a calibrated probability to rank by (active review).

Stacking (member weights learnt on the same control items) is offered beside plain averaging, with the
gain in average precision and a bootstrap interval; averaging stays the default until the interval shows
a gain on the project's own sample. scikit-learn does the fitting; this module only wires the design
weights, the folds and the bootstrap together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

#: Reviewed control items needed before anything is fitted, and of each outcome (wrong / right).
MIN_REVIEWED = 30
MIN_PER_OUTCOME = 5
METHODS = ("isotonic", "logistic")


def not_enough(wrong: Sequence[bool]) -> str | None:
    """Why the reviewed control items cannot support a calibration (None: they can)."""
    n, k = len(wrong), int(np.sum(wrong))
    if n < MIN_REVIEWED or min(k, n - k) < MIN_PER_OUTCOME:
        return (f"PENDING: {n} reviewed control items ({k} wrong labels); a calibration needs at least "
                f"{MIN_REVIEWED}, with {MIN_PER_OUTCOME} wrong and {MIN_PER_OUTCOME} right")
    return None


def _model(method: str, seed: int):
    if method == "isotonic":
        return IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    if method == "logistic":
        return LogisticRegression(C=1.0, random_state=seed)
    raise ValueError(f"calibration method must be one of {METHODS}, got {method!r}")


def _features(scores: np.ndarray, method: str) -> np.ndarray:
    scores = np.asarray(scores, dtype=float)
    if method == "isotonic":
        if scores.ndim == 2:
            if scores.shape[1] != 1:
                raise ValueError("isotonic calibration takes one score per item")
            scores = scores[:, 0]
        return scores
    return scores.reshape(len(scores), -1)


def _predict(model: Any, x: np.ndarray) -> np.ndarray:
    return model.predict_proba(x)[:, 1] if hasattr(model, "predict_proba") else model.predict(x)


@dataclass(frozen=True)
class Calibration:
    """A fitted P(wrong | score), its control items' cross-validated probabilities, and what it rests on."""

    method: str
    model: Any
    cv_probs: np.ndarray
    wrong: np.ndarray
    weights: np.ndarray
    folds: tuple[Any, ...] = ()

    @property
    def n(self) -> int:
        return len(self.wrong)

    def predict(self, scores: Sequence[float] | np.ndarray) -> np.ndarray:
        """Calibrated probability that the label is wrong, for items outside the control sample."""
        return np.clip(_predict(self.model, _features(np.asarray(scores), self.method)), 0.0, 1.0)

    def cross_fitted(self, scores: Sequence[float] | np.ndarray) -> np.ndarray:
        """The fold models' average P(label wrong) for items outside the control sample (cross-prediction).

        With :attr:`cv_probs` for the control items it gives every item a probability that no control
        item's verdict fitted for that very item, the same way for sampled and unsampled items (Zrnic &
        Candès 2024, cross-prediction-powered inference): what the judge-assisted error rate needs.
        """
        x = _features(np.asarray(scores), self.method)
        return np.clip(np.mean([_predict(fold, x) for fold in self.folds], axis=0), 0.0, 1.0)

    def average_precision(self) -> float:
        """Design-weighted average precision of the cross-validated probabilities."""
        return float(average_precision_score(self.wrong, self.cv_probs, sample_weight=self.weights))

    def precision_by_threshold(self, thresholds: Sequence[float] = (0.2, 0.4, 0.5, 0.6, 0.8)) -> list[dict[str, Any]]:
        """Per threshold t: control items with cross-validated P >= t, their weighted precision and recall."""
        rows = []
        total_wrong = float(np.sum(self.weights * self.wrong))
        for t in thresholds:
            chosen = self.cv_probs >= t
            w_chosen = float(np.sum(self.weights[chosen]))
            hits = float(np.sum(self.weights[chosen] * self.wrong[chosen]))
            rows.append({"threshold": t, "n": int(chosen.sum()),
                         "precision": None if w_chosen == 0 else round(hits / w_chosen, 4),
                         "recall": None if total_wrong == 0 else round(hits / total_wrong, 4)})
        return rows


def fit_calibration(scores: Sequence[float] | np.ndarray, wrong: Sequence[bool], *,
                    weights: Sequence[float] | None = None, method: str = "isotonic", folds: int = 5,
                    seed: int = 0) -> Calibration:
    """Fit P(wrong | scores) on reviewed control items (``weights``: design weights, default 1).

    ``scores``: one score per item for ``isotonic`` (e.g. 1 - ensemble probability of the original label),
    one row of scores per item for ``logistic`` (several scores: stacking). Raises ValueError when
    :func:`not_enough` says the sample cannot support it.
    """
    y = np.asarray(wrong, dtype=int)
    reason = not_enough(y.astype(bool))
    if reason:
        raise ValueError(reason)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    x = _features(np.asarray(scores), method)
    cv = np.zeros(len(y))
    splitter = StratifiedKFold(n_splits=min(folds, int(y.sum()), int(len(y) - y.sum())), shuffle=True,
                               random_state=seed)
    fitted = []
    # one BLAS thread: a few dozen points, and a second thread that a loaded machine does not give made each
    # logistic fit 8 times slower (55 ms -> 7 ms on the shared 2-core box; docs/architecture.md#one-blas-thread-while-fitting)
    with threadpool_limits(limits=1):
        for train, test in splitter.split(np.zeros(len(y)), y):
            fold = _model(method, seed).fit(x[train], y[train], sample_weight=w[train])
            cv[test] = _predict(fold, x[test])
            fitted.append(fold)
        model = _model(method, seed).fit(x, y, sample_weight=w)
    return Calibration(method=method, model=model, cv_probs=np.clip(cv, 0.0, 1.0), wrong=y, weights=w,
                       folds=tuple(fitted))


def stacking_gain(member_scores: np.ndarray, wrong: Sequence[bool], *, weights: Sequence[float] | None = None,
                  boots: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Average precision of learnt member weights (logistic stacking, cross-validated) vs plain averaging.

    ``member_scores[i, j]``: member ``j``'s score for control item ``i``. The gain's 95 % interval is a
    percentile bootstrap over the control items (both rankings evaluated on the same resample).
    """
    x = np.asarray(member_scores, dtype=float)
    y = np.asarray(wrong, dtype=int)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    stacked = fit_calibration(x, y, weights=w, method="logistic", seed=seed).cv_probs
    plain = x.mean(axis=1)
    rng = np.random.default_rng(seed)
    gains = []
    for _ in range(boots):
        idx = rng.integers(0, len(y), len(y))
        if y[idx].min() == y[idx].max():
            continue
        gains.append(average_precision_score(y[idx], stacked[idx], sample_weight=w[idx])
                     - average_precision_score(y[idx], plain[idx], sample_weight=w[idx]))
    ap_plain = float(average_precision_score(y, plain, sample_weight=w))
    ap_stacked = float(average_precision_score(y, stacked, sample_weight=w))
    low, high = (np.percentile(gains, [2.5, 97.5]) if gains else (float("nan"), float("nan")))
    return {"n": len(y), "ap_average": round(ap_plain, 4), "ap_stacked": round(ap_stacked, 4),
            "gain": round(ap_stacked - ap_plain, 4), "gain_ci95": [round(float(low), 4), round(float(high), 4)],
            "stacking_shown_better": bool(low > 0)}
