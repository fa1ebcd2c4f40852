"""Each source's top-1 accuracy with an interval that carries the truth model's own uncertainty.

The truth is not observed: a source's accuracy is read against the truth model's posterior, which was fitted
on the same labels (the source's own among them). Wilson's interval on the expected count treats that
posterior as known and is too narrow: on simulated projects with a planted truth it covered the true
accuracy of annotators 85-92 % of the time (``bench/bench_source_accuracy.py``). The item bootstrap
resamples the items (with their labels and anchors), refits the model on each resample and reads every
source's accuracy again; the 2.5 and 97.5 percentiles of those refits are the interval. A resample is item
weights (an item drawn twice counts twice: the same EM as on the duplicated rows), and each refit starts at
the full fit's parameters, which keeps the labels from swapping between refits and the cost to a few EM
steps. Why by hand: the refit is the model's own EM; scipy's ``bootstrap`` wants a statistic of the data
arrays, not a model refitted on item weights.

The table's model reads every source by its top label (:func:`top1_observations`, :func:`source_table`), not
the triage's model, which reads a judge's whole distribution: that soft likelihood weighs an unsure judge
less than its top label deserves, so the posterior sides with the annotators where they and the judge
disagree and the judge's top-1 accuracy read against it runs low (on simulated projects 5-6 points for judges
putting 0.5-0.95 on their top label, 1-2 points for confident ones; the intervals then covered 33 % and 92 %).
Read against a Dawid–Skene fit on top labels, which is the model of exactly what the column reports, the
bias is gone (``bench/bench_source_accuracy.py``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from backend.review.truth_model import SourceQuality, TruthModel

__all__ = ["source_accuracies", "source_table", "top1_observations", "DEFAULT_REFITS"]

#: Refits of the bootstrap: enough for the 2.5/97.5 percentiles to move by well under a point between runs
#: (the seed is fixed, so one project's report is reproducible).
DEFAULT_REFITS = 200


def source_accuracies(model: TruthModel, *, refits: int = DEFAULT_REFITS, seed: int = 0) -> list[SourceQuality]:
    """Every source of a fitted ``model``: top-1 accuracy, its item-bootstrap interval, its confusion matrix.

    ``refits`` 0 keeps Wilson's interval (:meth:`TruthModel.source_quality`). The level is the model's
    ``confidence``. A source that a resample leaves without labels is skipped in that refit. Each end is the
    wider of the bootstrap's and Wilson's: a source right on every item it labelled gives the same 1.0 in every
    refit, and a percentile interval of zero width would print a sampled figure as exact (Wilson's is the
    binomial floor a count of n always has); the interval also always holds its own estimate.
    """
    if refits < 0:
        raise ValueError("refits must be at least 0")
    quality = model.source_quality()
    if not quality or refits == 0:
        return quality
    rng = np.random.default_rng(seed)
    n_items = len(model.items_)
    draws = np.empty((refits, len(model.sources_)))
    for b in range(refits):
        weights = np.bincount(rng.integers(0, n_items, n_items), minlength=n_items).astype(float)
        probas, _errors = model.refit(weights)
        draws[b] = model.top1_accuracy(probas, weights)
    tail = 100 * (1 - model.confidence) / 2
    low = np.nanpercentile(draws, tail, axis=0)
    high = np.nanpercentile(draws, 100 - tail, axis=0)
    return [replace(q, low=float(min(lo, q.low, q.accuracy)), high=float(max(hi, q.high, q.accuracy)),
                    interval=f"bootstrap ({refits} refits)") for q, lo, hi in zip(quality, low, high)]


def top1_observations(observations: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Item -> source -> label with each distribution replaced by its top label (a tie: evenly split among them)."""
    out: dict[str, dict[str, Any]] = {}
    for item, by in observations.items():
        row: dict[str, Any] = {}
        for source, obs in by.items():
            if isinstance(obs, Mapping):
                values = {str(k): float(v) for k, v in obs.items() if v is not None and np.isfinite(v) and v > 0}
                if not values:
                    continue
                best = max(values.values())
                tied = [k for k, v in values.items() if v >= best - 1e-12]
                row[source] = tied[0] if len(tied) == 1 else {k: 1.0 for k in tied}
            else:
                row[source] = obs
        out[str(item)] = row
    return out


def source_table(observations: Mapping[str, Mapping[str, Any]], *, labels: Sequence[str],
                 anchors: Mapping[str, str] | None = None, refits: int = DEFAULT_REFITS,
                 seed: int = 0) -> list[SourceQuality]:
    """The sources' table: a Dawid–Skene fit on every source's top label, its top-1 accuracies and intervals.

    ``soft`` marks the sources that gave distributions (judges, the confident-learning member).
    """
    soft = {source for by in observations.values() for source, obs in by.items() if isinstance(obs, Mapping)}
    model = TruthModel(labels).fit(top1_observations(observations), anchors=anchors)
    return [replace(q, soft=q.source in soft) for q in source_accuracies(model, refits=refits, seed=seed)]
