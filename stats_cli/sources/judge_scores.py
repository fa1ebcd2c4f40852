"""Every audited item's P(label wrong) and the settled control sample, as the strata of a judge-assisted estimate.

The score of an item is 1 − the ensemble's probability of its own label (:func:`backend.api.wrong_score`);
an item the ensemble did not score counts with score 0 (any fixed score keeps the estimate valid, it only
makes it less tight). Once the control sample can support it (:func:`backend.api.not_enough`), the scores
are calibrated on it, cross-fitted: each control item is scored by the folds that did not see its verdict,
every other item by the average of those fold models (:meth:`backend.review.calibration.Calibration.cross_fitted`),
so no reviewed item's own verdict scores it. The strata are the draw's (``random``: one stratum of every
item), their sizes the draw's; only the scores' total enters the estimate, spread over the strata in
proportion to their sizes.

A drawn item not settled yet (open, split, "more than one answer may be right") leaves the estimate
PENDING: the experts may leave exactly the hard items open, so the settled ones are no random sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from backend.api import fit_calibration, not_enough, wrong_score
from stats_cli.sources.audit_data import AuditData
from stats_cli.stats.judge_assisted import StratumSample

__all__ = ["JudgeInputs", "calibrated_scores", "judge_strata"]

RAW = "1 − the ensemble's probability of the label"
CALIBRATED = "calibrated on the control sample, cross-fitted (logistic, 5 folds)"


@dataclass(frozen=True)
class JudgeInputs:
    """The strata for :func:`stats_cli.stats.judge_assisted.judge_assisted_rate` (None with ``reason``)."""

    strata: tuple[StratumSample, ...] | None
    reason: str = ""
    scores: str = RAW


def calibrated_scores(raw: np.ndarray, sampled: Sequence[int], wrong: Sequence[bool],
                      weights: Sequence[float]) -> tuple[np.ndarray, float, str]:
    """(the sampled items' scores, the scores' total over every item, what they are), calibrated when it can be."""
    raw = np.asarray(raw, dtype=float)
    idx = np.asarray(sampled, dtype=int)
    if not_enough([bool(v) for v in wrong]) is not None:
        return raw[idx], float(raw.sum()), RAW
    fit = fit_calibration(raw[idx], wrong, weights=weights, method="logistic")
    every = fit.cross_fitted(raw)
    every[idx] = fit.cv_probs
    return fit.cv_probs, float(every.sum()), CALIBRATED


def judge_strata(data: AuditData) -> JudgeInputs:
    """The draw's strata with every item's score and the settled sample (see the module docstring)."""
    draw = data.sample
    if draw is None:
        return JudgeInputs(None, "no random sample drawn (review push --sample N)")
    position = {str(it.id): k for k, it in enumerate(data.items)}
    raw = np.array([wrong_score(it) or 0.0 for it in data.items])
    rows = []
    for drawn in draw.items:
        k = position.get(drawn.task_id)
        if k is None:
            return JudgeInputs(None, f"drawn item {drawn.task_id} is not among the audited items")
        item = data.items[k]
        gold, status = data.gold(item)
        if gold is None or not status.settled:
            return JudgeInputs(None, "a drawn item is not settled yet; the judge-assisted interval waits for every one")
        rows.append((k, data.is_error(item, gold), drawn.stratum, 1.0 / drawn.inclusion_probability))
    if not rows:
        return JudgeInputs(None, "no item drawn")
    idx, wrong, names, weights = zip(*rows)
    scores, total, basis = calibrated_scores(raw, idx, wrong, weights)
    by_name: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        by_name.setdefault(name, []).append(j)
    if set(by_name) != {n for n, size in draw.strata.items() if size}:
        return JudgeInputs(None, "a stratum of the design has no drawn item")
    # the mean score times each stratum's size: the draw may count another set of items than this view
    strata = tuple(StratumSample(population=draw.strata[name], score_total=min(total * draw.strata[name] / len(raw),
                                                                              float(draw.strata[name])),
                                 scores=tuple(float(scores[j]) for j in members),
                                 wrong=tuple(bool(wrong[j]) for j in members), name=name)
                   for name, members in sorted(by_name.items()))
    return JudgeInputs(strata, scores=basis)
