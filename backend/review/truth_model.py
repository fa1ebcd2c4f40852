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

A source's accuracy is its expected agreement with the truth over the items it labelled,
``Σ_obs Σ_c p(c) q_c / n``; its interval is Wilson's on that expected count and ``n``. Wilson because it
stays inside [0, 1] and behaves at small n (``n`` counts every label of a list); it treats the posteriors as known, so it is narrower than a
bootstrap over EM refits would be (too costly on a shared machine for every report): read it as a
lower bound on the uncertainty.
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
    """One source: observations, expected accuracy with its Wilson interval, and confusion P(says l | truth c)."""

    source: str
    n: int
    accuracy: float
    low: float
    high: float
    confusion: dict[str, dict[str, float]]  # truth -> said -> probability

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "n": self.n, "accuracy": self.accuracy, "low": self.low, "high": self.high,
                "confusion": self.confusion}


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
        rows: list[tuple[int, int, np.ndarray]] = []
        items: dict[str, int] = {}
        sources: dict[str, int] = {}
        for item, by in observations.items():
            for source, obs in by.items():
                v = self._vector(obs)
                if v is None:
                    continue
                i = items.setdefault(str(item), len(items))
                s = sources.setdefault(str(source), len(sources))
                rows.append((i, s, v))
        self.items_, self.sources_ = list(items), list(sources)
        k = len(self.labels)
        if not rows:
            self.probas_, self.errors_ = np.zeros((0, k)), np.zeros((0, k, k))
            return self
        self._item_idx = np.array([r[0] for r in rows])
        self._source_idx = np.array([r[1] for r in rows])
        self._q = np.vstack([r[2] for r in rows])
        self._anchor = np.full(len(items), -1)
        for item, gold in (anchors or {}).items():
            if str(item) in items and gold is not None and str(gold) in self.labels:
                self._anchor[items[str(item)]] = self.labels.index(str(gold))
        probas = self._clamp(self._majority())
        priors = probas.mean(axis=0)
        errors = self._m_step(probas)
        loss = -np.inf
        for step in range(self.n_iter):
            probas = self._clamp(self._e_step(priors, errors))
            priors = probas.mean(axis=0)
            errors = self._m_step(probas)
            new_loss = self._elbo(probas, priors, errors)
            self.n_iter_ = step + 1
            if new_loss - loss < self.tol:
                break
            loss = new_loss
        self.probas_, self.priors_, self.errors_ = probas, priors, errors
        return self

    def _majority(self) -> np.ndarray:
        out = np.zeros((len(self.items_), len(self.labels)))
        np.add.at(out, self._item_idx, self._q)  # crowd-kit's MajorityVote shares (a list counts each label)
        return out / out.sum(axis=1, keepdims=True)

    def _clamp(self, probas: np.ndarray) -> np.ndarray:
        anchored = self._anchor >= 0
        if anchored.any():
            probas = probas.copy()
            probas[anchored] = 0.0
            probas[anchored, self._anchor[anchored]] = 1.0
        return probas

    def _m_step(self, probas: np.ndarray) -> np.ndarray:
        counts = np.zeros((len(self.sources_), len(self.labels), len(self.labels)))
        np.add.at(counts, self._source_idx, self._q[:, :, None] * probas[self._item_idx][:, None, :])
        counts = np.clip(counts, _EPS, None)
        return counts / counts.sum(axis=1, keepdims=True)

    def _obs_loglik(self, errors: np.ndarray) -> np.ndarray:
        """Per observation and true class: Σ_l q_l log θ_s[l, c]."""
        return np.einsum("ol,olc->oc", self._q, np.log(errors[self._source_idx]))

    def _e_step(self, priors: np.ndarray, errors: np.ndarray) -> np.ndarray:
        loglik = np.zeros((len(self.items_), len(self.labels)))
        np.add.at(loglik, self._item_idx, self._obs_loglik(errors))
        loglik += np.log(np.clip(priors, _EPS, None))
        loglik -= loglik.max(axis=1, keepdims=True)
        out = np.exp(loglik)
        return out / out.sum(axis=1, keepdims=True)

    def _elbo(self, probas: np.ndarray, priors: np.ndarray, errors: np.ndarray) -> float:
        joint = self._obs_loglik(errors) + np.log(np.clip(priors, _EPS, None))
        expectation = float((probas[self._item_idx] * joint).sum())
        p = np.clip(probas, _EPS, None)
        return (expectation - float((np.log(p) * probas).sum())) / float(self._q.sum())

    def predict_proba(self) -> dict[str, dict[str, float]]:
        """Item -> label -> posterior probability of being the true label (anchored items: their gold)."""
        return {item: dict(zip(self.labels, map(float, row))) for item, row in zip(self.items_, self.probas_)}

    def predict(self) -> dict[str, str]:
        """Item -> the label of highest posterior (the first in label order on a tie)."""
        return {item: self.labels[int(np.argmax(row))] for item, row in zip(self.items_, self.probas_)}

    def source_quality(self) -> list[SourceQuality]:
        """Each source's expected accuracy (Wilson interval on the expected count) and confusion matrix."""
        out = []
        if not len(self.items_):
            return out
        agree = (self.probas_[self._item_idx] * self._q).sum(axis=1)
        weight = self._q.sum(axis=1)
        for s, name in enumerate(self.sources_):
            mask = self._source_idx == s
            n, correct = int(round(float(weight[mask].sum()))), float(agree[mask].sum())
            low, high = proportion_confint(correct, n, alpha=1 - self.confidence, method="wilson")
            confusion = {truth: {said: float(self.errors_[s, a, c]) for a, said in enumerate(self.labels)}
                         for c, truth in enumerate(self.labels)}
            out.append(SourceQuality(name, n, correct / n, float(low), float(high), confusion))
        return out

    def pooled_confusion(self) -> np.ndarray:
        """Expected counts ``[said, truth]`` summed over every source and observation (guideline gaps read it)."""
        k = len(self.labels)
        if not len(self.items_):
            return np.zeros((k, k))
        return np.einsum("ol,oc->lc", self._q, self.probas_[self._item_idx])
