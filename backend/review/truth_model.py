"""One model of the truth: Dawid–Skene over every source of labels, soft sources allowed, gold as anchors.

The ledger holds several kinds of evidence about an item's true label: the original annotators' labels,
each judge's class distribution (member × prompt), the confident-learning member's out-of-fold
probabilities, and the experts' settled verdicts. A latent-class model (Dawid & Skene 1979) weighs each
source by its estimated confusion matrix instead of averaging them alike.

Why by hand: crowd-kit 1.4.2's ``DawidSkene.fit(data, true_labels)`` takes gold anchors but only hard
labels, and cleanlab's CROWDLAB (``cleanlab.multiannotator``) takes one classifier's probabilities plus hard
annotator labels, with no gold and no several soft sources. A judge's answer is a distribution, and
rounding it to its top label throws away exactly the uncertainty the triage needs. This module is the
same EM as crowd-kit's (majority-vote start, priors as mean posteriors, confusion counts clipped at
1e-10, stopping on the evidence lower bound) with one generalisation: an observation is a distribution
``q`` over the labels and counts fractionally (``log P(obs | c) = Σ_l q_l log θ[l, c]``), so a hard label
(one-hot ``q``) gives crowd-kit's posteriors (``tests/backend/review/test_truth_model.py`` checks it). Anchored
items (expert gold) have their posterior clamped to the gold label after every E-step, as crowd-kit's
``true_labels`` does: semi-supervised EM.

A source's accuracy is its *top-1* accuracy: how often the label it puts first is the true one, read
against the posterior (an anchored item's posterior is its gold), ``Σ_obs Σ_c p(c) t_c / n`` where ``t`` is
the one-hot of a hard label, each label of a list, or a soft source's argmax (a tie split evenly among the
tied labels: a random tie-break's expected accuracy). Before, a soft source's figure was the *expected
agreement* of a label drawn from its distribution, ``Σ p(c) q_c``, a different quantity from the hard
sources' in the same column (a judge right 0.718 of the time showed 0.634). The interval is
:func:`backend.review.source_accuracy.source_accuracies`'s item bootstrap over refits of this model (the
report's table fits it on every source's top label, :func:`backend.review.source_accuracy.source_table`);
:meth:`TruthModel.source_quality` alone gives Wilson's interval on the expected count, which treats the
posteriors as known and covers the true accuracy only 85-92 % of the time (``bench/bench_source_accuracy.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from statsmodels.stats.proportion import proportion_confint

__all__ = ["TruthModel", "SourceQuality", "Observation"]

_EPS = 1e-10
#: One observation: a hard label, a distribution over labels (soft source), or a list of hard labels given
#: by one source to one item (a pooled crowd: each label counts once, one confusion matrix for them all).
Observation = str | Mapping[str, float] | Sequence[str]


@dataclass(frozen=True)
class SourceQuality:
    """One source: labels given, top-1 accuracy with its interval, and confusion P(says l | truth c).

    ``interval`` names how ``low``/``high`` were computed (``"wilson"``: posteriors taken as known;
    ``"bootstrap (B refits)"``: items resampled and the model refitted); ``soft``: a judge's distributions.
    """

    source: str
    n: int
    accuracy: float
    low: float
    high: float
    confusion: dict[str, dict[str, float]]  # truth -> said -> probability
    soft: bool = False
    interval: str = "wilson"

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "n": self.n, "accuracy": self.accuracy, "low": self.low, "high": self.high,
                "soft": self.soft, "interval": self.interval, "confusion": self.confusion}


def _top1(v: np.ndarray) -> np.ndarray:
    """A soft source's top-1 label as a vector: its argmax, a tie split evenly among the tied labels."""
    top = np.isclose(v, v.max(), rtol=0.0, atol=1e-12).astype(float)
    return top / top.sum()


def _sum_by(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Rows of ``values`` summed by ``index`` into ``n`` groups, in row order (``np.add.at``'s sums, bit for bit;
    bincount is faster, and the EM and its bootstrap refits run these sums thousands of times a report)."""
    flat = values.reshape(len(index), -1)
    cols = flat.shape[1]
    out = np.bincount(_flat_index(index, cols), weights=flat.ravel(), minlength=n * cols)
    return out.reshape((n, *values.shape[1:]))


_FLAT: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _flat_index(index: np.ndarray, cols: int) -> np.ndarray:
    """``index`` spread over ``cols`` columns (cached for the last arrays seen: one fit's refits reuse them)."""
    hit = _FLAT.get((id(index), cols))
    if hit is not None and hit[0] is index:
        return hit[1]
    if len(_FLAT) > 8:
        _FLAT.clear()
    flat = (index[:, None] * cols + np.arange(cols)).ravel()
    _FLAT[(id(index), cols)] = (index, flat)
    return flat


class TruthModel:
    """Dawid–Skene over hard and soft sources, with gold anchors (crowd-kit/sklearn-like ``fit``/``predict_proba``).

    Parameters
    ----------
    labels : sequence of str
        The label set, in the order of every probability vector.
    n_iter : int
        Most EM iterations (crowd-kit's default, 100).
    tol : float
        Stop when the evidence lower bound per observation gains less than this (crowd-kit's 1e-5).
    confidence : float
        Level of the sources' accuracy intervals.
    """

    def __init__(self, labels: Sequence[str], *, n_iter: int = 100, tol: float = 1e-5, confidence: float = 0.95):
        labels = [str(x) for x in labels]
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ValueError("TruthModel needs at least two distinct labels")
        if n_iter < 1:
            raise ValueError("n_iter must be at least 1")
        if not 0 < confidence < 1:
            raise ValueError("confidence must be in (0, 1)")
        self.labels, self.n_iter, self.tol, self.confidence = labels, n_iter, tol, confidence
        self.items_: list[str] = []
        self.sources_: list[str] = []
        self.probas_ = np.zeros((0, len(labels)))
        self.priors_ = np.zeros(len(labels))
        self.errors_ = np.zeros((0, len(labels), len(labels)))  # source, said, truth
        self.n_iter_ = 0

    def _vector(self, obs: Observation) -> np.ndarray | None:
        index = {lab: k for k, lab in enumerate(self.labels)}
        if isinstance(obs, Mapping):
            v = np.zeros(len(self.labels))
            for lab, p in obs.items():
                if str(lab) in index and p is not None and np.isfinite(p) and p > 0:
                    v[index[str(lab)]] = float(p)
            return v / v.sum() if v.sum() > 0 else None
        if isinstance(obs, (list, tuple)):
            v = np.zeros(len(self.labels))
            for lab in obs:
                if lab is not None and str(lab) in index:
                    v[index[str(lab)]] += 1.0
            return v if v.sum() > 0 else None
        if obs is None or str(obs) not in index:
            return None
        v = np.zeros(len(self.labels))
        v[index[str(obs)]] = 1.0
        return v

    def fit(self, observations: Mapping[str, Mapping[str, Observation]], *,
            anchors: Mapping[str, str | None] | None = None) -> "TruthModel":
        """Fit on item -> source -> label (or distribution); ``anchors`` item -> gold label clamps those items.

        Observations outside the label set, empty distributions and None are skipped (each source keeps
        the rest); an anchor outside the label set is ignored.
        """
        rows: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        items: dict[str, int] = {}
        sources: dict[str, int] = {}
        for item, by in observations.items():
            for source, obs in by.items():
                v = self._vector(obs)
                if v is None:
                    continue
                i = items.setdefault(str(item), len(items))
                s = sources.setdefault(str(source), len(sources))
                rows.append((i, s, v, _top1(v) if isinstance(obs, Mapping) else v))
        self.items_, self.sources_ = list(items), list(sources)
        k = len(self.labels)
        if not rows:
            self.probas_, self.errors_ = np.zeros((0, k)), np.zeros((0, k, k))
            return self
        self._item_idx = np.array([r[0] for r in rows])
        self._source_idx = np.array([r[1] for r in rows])
        self._q = np.vstack([r[2] for r in rows])
        self._top = np.vstack([r[3] for r in rows])
        self._soft = np.array([r[3] is not r[2] for r in rows])
        self._anchor = np.full(len(items), -1)
        for item, gold in (anchors or {}).items():
            if str(item) in items and gold is not None and str(gold) in self.labels:
                self._anchor[items[str(item)]] = self.labels.index(str(gold))
        self.probas_, self.priors_, self.errors_, self.n_iter_ = self._em(np.ones(len(items)))
        return self

    def _em(self, weights: np.ndarray, start: tuple[np.ndarray, np.ndarray] | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """EM with each item counted ``weights[i]`` times (a bootstrap resample is integer weights).

        ``start`` (priors, confusions) begins at an E-step from them (a refit starting at the full fit),
        else at the majority vote as crowd-kit does.
        """
        if start is None:
            probas = self._clamp(self._majority())
            priors = self._priors(probas, weights)
            errors = self._m_step(probas, weights)
        else:
            priors, errors = start
        loss, steps, obs = -np.inf, 0, None
        for step in range(self.n_iter):
            probas = self._clamp(self._e_step(priors, errors, obs))
            priors = self._priors(probas, weights)
            errors = self._m_step(probas, weights)
            obs = self._obs_loglik(errors)  # the next E-step's too (same confusions)
            new_loss = self._elbo(probas, priors, obs, weights)
            steps = step + 1
            if new_loss - loss < self.tol:
                break
            loss = new_loss
        return probas, priors, errors, steps

    @staticmethod
    def _priors(probas: np.ndarray, weights: np.ndarray) -> np.ndarray:
        return (weights[:, None] * probas).sum(axis=0) / weights.sum()

    def refit(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posteriors and confusions refitted with item weights, starting from this fit (for the bootstrap)."""
        probas, _priors, errors, _steps = self._em(np.asarray(weights, dtype=float), (self.priors_, self.errors_))
        return probas, errors

    def _majority(self) -> np.ndarray:
        out = _sum_by(self._item_idx, self._q, len(self.items_))  # crowd-kit's MajorityVote shares (a list counts each label)
        return out / out.sum(axis=1, keepdims=True)

    def _clamp(self, probas: np.ndarray) -> np.ndarray:
        anchored = self._anchor >= 0
        if anchored.any():
            probas = probas.copy()
            probas[anchored] = 0.0
            probas[anchored, self._anchor[anchored]] = 1.0
        return probas

    def _m_step(self, probas: np.ndarray, weights: np.ndarray) -> np.ndarray:
        w = weights[self._item_idx][:, None, None]
        counts = _sum_by(self._source_idx, w * self._q[:, :, None] * probas[self._item_idx][:, None, :],
                         len(self.sources_))
        counts = np.clip(counts, _EPS, None)
        return counts / counts.sum(axis=1, keepdims=True)

    def _obs_loglik(self, errors: np.ndarray) -> np.ndarray:
        """Per observation and true class: Σ_l q_l log θ_s[l, c]."""
        return np.einsum("ol,olc->oc", self._q, np.log(errors[self._source_idx]))

    def _e_step(self, priors: np.ndarray, errors: np.ndarray, obs: np.ndarray | None = None) -> np.ndarray:
        """Posteriors given priors and confusions (``obs``: their :meth:`_obs_loglik`, when already made)."""
        loglik = _sum_by(self._item_idx, self._obs_loglik(errors) if obs is None else obs, len(self.items_))
        loglik += np.log(np.clip(priors, _EPS, None))
        loglik -= loglik.max(axis=1, keepdims=True)
        out = np.exp(loglik)
        return out / out.sum(axis=1, keepdims=True)

    def _elbo(self, probas: np.ndarray, priors: np.ndarray, obs: np.ndarray, weights: np.ndarray) -> float:
        joint = obs + np.log(np.clip(priors, _EPS, None))
        w = weights[self._item_idx][:, None]
        expectation = float((w * probas[self._item_idx] * joint).sum())
        p = np.clip(probas, _EPS, None)
        entropy = float((weights[:, None] * np.log(p) * probas).sum())
        return (expectation - entropy) / float((w[:, 0] * self._q.sum(axis=1)).sum())

    def predict_proba(self) -> dict[str, dict[str, float]]:
        """Item -> label -> posterior probability of being the true label (anchored items: their gold)."""
        return {item: dict(zip(self.labels, map(float, row))) for item, row in zip(self.items_, self.probas_)}

    def predict(self) -> dict[str, str]:
        """Item -> the label of highest posterior (the first in label order on a tie)."""
        return {item: self.labels[int(np.argmax(row))] for item, row in zip(self.items_, self.probas_)}

    def top1_accuracy(self, probas: np.ndarray | None = None, weights: np.ndarray | None = None) -> np.ndarray:
        """Each source's top-1 accuracy against ``probas`` (default the fit's), items counted ``weights`` times.

        NaN for a source with no observation of positive weight.
        """
        probas = self.probas_ if probas is None else probas
        w = np.ones(len(self.items_)) if weights is None else np.asarray(weights, dtype=float)
        row_w = w[self._item_idx]
        right = np.bincount(self._source_idx, row_w * (probas[self._item_idx] * self._top).sum(axis=1),
                            minlength=len(self.sources_))
        given = np.bincount(self._source_idx, row_w * self._top.sum(axis=1), minlength=len(self.sources_))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(given > 0, right / np.where(given > 0, given, 1.0), np.nan)

    def source_quality(self) -> list[SourceQuality]:
        """Each source's top-1 accuracy (Wilson interval on the expected count, posteriors taken as known) and
        confusion matrix; :func:`backend.review.source_accuracy.source_accuracies` gives the bootstrap interval."""
        out = []
        if not len(self.items_):
            return out
        accuracy = self.top1_accuracy()
        weight = self._top.sum(axis=1)
        for s, name in enumerate(self.sources_):
            n = int(round(float(weight[self._source_idx == s].sum())))
            low, high = proportion_confint(accuracy[s] * n, n, alpha=1 - self.confidence, method="wilson")
            confusion = {truth: {said: float(self.errors_[s, a, c]) for a, said in enumerate(self.labels)}
                         for c, truth in enumerate(self.labels)}
            out.append(SourceQuality(name, n, float(accuracy[s]), float(low), float(high), confusion,
                                     soft=bool(self._soft[self._source_idx == s].any())))
        return out

    def pooled_confusion(self) -> np.ndarray:
        """Expected counts ``[said, truth]`` summed over every source and observation (guideline gaps read it)."""
        k = len(self.labels)
        if not len(self.items_):
            return np.zeros((k, k))
        return np.einsum("ol,oc->lc", self._q, self.probas_[self._item_idx])
