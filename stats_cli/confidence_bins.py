"""Who do the experts side with, by LLM confidence? (Nahum et al. 2024, Fig. 2 and App. G.2.)

Among items where the LLM ensemble disagrees with the original label, sort by the ensemble's
confidence, cut into equal-size bins, and count how often the expert (gold) label equals the
LLM's prediction, the original label, or neither. Rising "LLM" shares with confidence are what
justify a confidence threshold for flagging. Each share gets a percentile bootstrap interval
(scipy.stats.bootstrap, seeded) over the bin's items — a statement about the reviewed sample,
not the dataset, as the paper notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy.stats import bootstrap

from stats_cli.labels import normalize_label

__all__ = ["Share", "ConfidenceBin", "confidence_bins", "OUTCOMES"]

OUTCOMES = ("llm", "original", "neither")


@dataclass(frozen=True)
class Share:
    """A proportion and its bootstrap interval (None when the bin has fewer than two items)."""

    value: float
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, Any]:
        return {"share": self.value, "ci_low": self.low, "ci_high": self.high}


@dataclass(frozen=True)
class ConfidenceBin:
    """One equal-size bin: its confidence range, size and the three shares."""

    index: int
    conf_min: float
    conf_max: float
    n: int
    shares: dict[str, Share]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bin": self.index, "conf_min": self.conf_min, "conf_max": self.conf_max, "n": self.n}
        out.update({name: share.to_json() for name, share in self.shares.items()})
        return out


def _share(outcome: np.ndarray, *, resamples: int, level: float, rng: np.random.Generator) -> Share:
    value = float(outcome.mean())
    if len(outcome) < 2:
        return Share(value, None, None)
    if outcome.min() == outcome.max():  # every resample is identical
        return Share(value, value, value)
    result = bootstrap(
        (outcome,), np.mean, n_resamples=resamples, confidence_level=level,
        method="percentile", vectorized=True, rng=rng,
    )
    return Share(value, float(result.confidence_interval.low), float(result.confidence_interval.high))


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
) -> list[ConfidenceBin]:
    """Equal-size confidence bins with expert-agreement shares and bootstrap CIs.

    Parameters
    ----------
    bins : number of bins (fewer when there are fewer items).
    resamples : bootstrap resamples per share (Nahum used 100; 1000 is steadier).
    seed : seeds the bootstrap so reruns print the same intervals.
    disagreements_only : keep only items whose prediction differs from the original label.
    """
    if bins < 1 or resamples < 1 or not 0 < level < 1:
        raise ValueError("need bins ≥ 1, resamples ≥ 1 and 0 < level < 1")
    if not len(original) == len(prediction) == len(confidence) == len(gold):
        raise ValueError("original, prediction, confidence and gold must have the same length")
    orig = np.array([normalize_label(x) for x in original], dtype=object)
    pred = np.array([normalize_label(x) for x in prediction], dtype=object)
    true = np.array([normalize_label(x) for x in gold], dtype=object)
    conf = np.asarray(confidence, dtype=float)
    keep = orig != pred if disagreements_only else np.ones(len(orig), dtype=bool)
    orig, pred, true, conf = orig[keep], pred[keep], true[keep], conf[keep]
    outcomes = {
        "llm": (true == pred).astype(float),
        "original": (true == orig).astype(float),
        "neither": ((true != pred) & (true != orig)).astype(float),
    }
    order = np.argsort(conf, kind="stable")
    rng = np.random.default_rng(seed)
    out: list[ConfidenceBin] = []
    for index, members in enumerate(np.array_split(order, min(bins, len(order))) if len(order) else []):
        out.append(ConfidenceBin(
            index=index + 1,
            conf_min=float(conf[members].min()),
            conf_max=float(conf[members].max()),
            n=len(members),
            shares={k: _share(v[members], resamples=resamples, level=level, rng=rng) for k, v in outcomes.items()},
        ))
    return out
