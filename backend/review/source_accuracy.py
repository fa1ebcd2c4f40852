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
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from backend.review.truth_model import SourceQuality, TruthModel

__all__ = ["source_accuracies", "DEFAULT_REFITS"]

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
