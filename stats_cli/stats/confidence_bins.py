"""Who do the experts side with, by LLM confidence? (Nahum et al. 2024, Fig. 2 and App. G.2.)

Among items where the LLM ensemble disagrees with the original label, sort by the ensemble's
confidence, cut at its quantiles (items with the same confidence never split across bins), merge any
bin with fewer than ``min_n`` items into its smaller neighbour, and count how often the expert
(gold) label equals the LLM's prediction, the original label, or neither. Each bin keeps its real
confidence range and n. Rising "LLM" shares with confidence are what justify a confidence threshold
for flagging. Each share gets a Clopper-Pearson interval (statsmodels): the percentile bootstrap the
paper used covers only 0.65–0.89 at n = 10–30 and gives a unanimous bin of 10 the interval [1, 1]
(exact: [0.69, 1]); ``interval="bootstrap"`` keeps it for comparison. A statement about the reviewed
sample, not the dataset, as the paper notes.

Ordinal labels (Nahum App. A.4.1, SummEval): when the LLM and the original differ, both may be
wrong and the expert's answer a third class, so the question becomes *who is closer*: the LLM
(``llm``), the original (``original``), or both equally (``equal``, the expert's label exactly in
the middle). Pass the classes in order as ``order`` to ask it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy.stats import bootstrap
from statsmodels.stats.proportion import proportion_confint

from stats_cli.stats.labels import normalize_label

__all__ = ["Share", "ConfidenceBin", "confidence_bins", "quantile_groups", "OUTCOMES", "ORDINAL_OUTCOMES", "MIN_BIN"]

MIN_BIN = 10  # a bin with fewer items is merged into a neighbour

OUTCOMES = ("llm", "original", "neither")
ORDINAL_OUTCOMES = ("llm", "original", "equal")


@dataclass(frozen=True)
class Share:
    """A proportion and its interval (bootstrap: None when the bin has fewer than two items)."""

    value: float
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, Any]:
        return {"share": self.value, "ci_low": self.low, "ci_high": self.high}


@dataclass(frozen=True)
class ConfidenceBin:
    """One quantile bin: its confidence range, size and the three shares."""

    index: int
    conf_min: float
    conf_max: float
    n: int
    shares: dict[str, Share]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bin": self.index, "conf_min": self.conf_min, "conf_max": self.conf_max, "n": self.n}
        out.update({name: share.to_json() for name, share in self.shares.items()})
        return out


def _share(outcome: np.ndarray, *, resamples: int, level: float, rng: np.random.Generator,
           interval: str = "clopper-pearson") -> Share:
    value = float(outcome.mean())
    if interval == "clopper-pearson":
        low, high = proportion_confint(int(outcome.sum()), len(outcome), alpha=1 - level, method="beta")
        return Share(value, float(low), float(high))
    if len(outcome) < 2:
        return Share(value, None, None)
    if outcome.min() == outcome.max():  # every resample is identical
        return Share(value, value, value)
    result = bootstrap(
        (outcome,), np.mean, n_resamples=resamples, confidence_level=level,
        method="percentile", vectorized=True, rng=rng,
    )
    return Share(value, float(result.confidence_interval.low), float(result.confidence_interval.high))


def quantile_groups(conf: np.ndarray, bins: int, min_n: int) -> list[np.ndarray]:
    """Indices into ``conf`` grouped by confidence quantile, ties kept together, groups under ``min_n`` merged."""
    order = np.argsort(conf, kind="stable")
    if not len(order):
        return []
    ranked = conf[order]
    bins = max(1, min(bins, len(order) // min_n))  # as many bins as can hold min_n items each
    cuts = sorted({int(np.searchsorted(ranked, ranked[min(round(len(order) * q / bins), len(order) - 1)], "left"))
                   for q in range(1, bins)} - {0})
    groups = [g for g in np.split(order, cuts) if len(g)]
    while len(groups) > 1 and min(len(g) for g in groups) < min_n:
        i = min(range(len(groups)), key=lambda j: len(groups[j]))
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(groups)]
        j = min(neighbours, key=lambda k: len(groups[k]))  # merge into the smaller neighbour
        a, b = sorted((i, j))
        groups[a:b + 1] = [np.concatenate([groups[a], groups[b]])]
    return groups


def _ordinal_outcomes(orig: np.ndarray, pred: np.ndarray, true: np.ndarray,
                      order: Sequence[Any]) -> dict[str, np.ndarray]:
    """Distance in class positions from the expert's label: who is closer (Nahum App. A.4.1)."""
    rank = {normalize_label(x): i for i, x in enumerate(order)}
    unknown = {x for x in (*orig, *pred, *true) if x not in rank}
    if unknown:
        raise ValueError(f"labels not in the ordinal order {list(rank)}: {sorted(map(str, unknown))[:5]}")
    to_rank = np.vectorize(rank.__getitem__, otypes=[float])
    gap_llm = np.abs(to_rank(pred) - to_rank(true)) if len(true) else np.array([])
    gap_orig = np.abs(to_rank(orig) - to_rank(true)) if len(true) else np.array([])
    return {"llm": (gap_llm < gap_orig).astype(float), "original": (gap_orig < gap_llm).astype(float),
            "equal": (gap_llm == gap_orig).astype(float)}


def confidence_bins(
    original: Sequence[Any],
    prediction: Sequence[Any],
    confidence: Sequence[float],
    gold: Sequence[Any],
    *,
    bins: int = 5,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    disagreements_only: bool = True,
    order: Sequence[Any] | None = None,
    min_n: int = MIN_BIN,
    interval: str = "clopper-pearson",
) -> list[ConfidenceBin]:
    """Quantile confidence bins (ties together, small ones merged) with expert-agreement shares and their CIs.

    Parameters
    ----------
    bins : number of quantile bins asked for (fewer when ties or ``min_n`` merge them).
    resamples, seed : for ``interval="bootstrap"`` only (Nahum used 100 resamples).
    min_n : a bin with fewer items is merged into its smaller neighbour.
    interval : ``clopper-pearson`` (exact, the default) or ``bootstrap`` (percentile, Nahum's).
    disagreements_only : keep only items whose prediction differs from the original label.
    order : the ordinal classes, lowest first: then the shares are "LLM closer / original closer /
        equally close" to the expert (:data:`ORDINAL_OUTCOMES`) instead of exact matches.
    """
    if bins < 1 or resamples < 1 or min_n < 1 or not 0 < level < 1:
        raise ValueError("need bins ≥ 1, resamples ≥ 1, min_n ≥ 1 and 0 < level < 1")
    if interval not in ("clopper-pearson", "bootstrap"):
        raise ValueError(f"interval must be clopper-pearson or bootstrap, got {interval!r}")
    if not len(original) == len(prediction) == len(confidence) == len(gold):
        raise ValueError("original, prediction, confidence and gold must have the same length")
    orig = np.array([normalize_label(x) for x in original], dtype=object)
    pred = np.array([normalize_label(x) for x in prediction], dtype=object)
    true = np.array([normalize_label(x) for x in gold], dtype=object)
    conf = np.asarray(confidence, dtype=float)
    keep = orig != pred if disagreements_only else np.ones(len(orig), dtype=bool)
    orig, pred, true, conf = orig[keep], pred[keep], true[keep], conf[keep]
    outcomes = _ordinal_outcomes(orig, pred, true, order) if order is not None else {
        "llm": (true == pred).astype(float),
        "original": (true == orig).astype(float),
        "neither": ((true != pred) & (true != orig)).astype(float),
    }
    rng = np.random.default_rng(seed)
    out: list[ConfidenceBin] = []
    for index, members in enumerate(quantile_groups(conf, bins, min_n)):
        out.append(ConfidenceBin(
            index=index + 1,
            conf_min=float(conf[members].min()),
            conf_max=float(conf[members].max()),
            n=len(members),
            shares={k: _share(v[members], resamples=resamples, level=level, rng=rng, interval=interval)
                    for k, v in outcomes.items()},
        ))
    return out
