"""Every audited item's P(label wrong) and the settled control sample, as the strata of a judge-assisted estimate.

Two readers need the same interval: the report's *Label errors* rows (``audit-stats``, through
``backend/api.py``) and ``review push --until-width`` (which stops drawing when it is narrow enough). So
the strata are built here, once, from plain inputs: every item's raw score, the drawn items with their
verdicts, and the draw's stratum sizes.

The score of an item is 1 − the ensemble's probability of its own label (:func:`backend.review.active.wrong_score`);
an item the ensemble did not score counts with score 0 (any fixed score keeps the estimate valid, it only
makes it less tight). Once the control sample can support it (:func:`backend.review.calibration.not_enough`),
the scores are calibrated on it, cross-fitted: each control item is scored by the folds that did not see its
verdict, every other item by the average of those fold models (:meth:`backend.review.calibration.Calibration.cross_fitted`),
so no reviewed item's own verdict scores it. Only the scores' total enters the estimate (Σ_h W_h F̄_h is the
overall mean whatever the strata), spread over the strata in proportion to their sizes.

A drawn item not settled yet leaves the estimate without a basis: the experts may leave exactly the hard
items open, so the settled ones are no random sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from backend.estimates.judge_assisted import StratumSample
from backend.review.active import wrong_score
from backend.review.calibration import fit_calibration, not_enough
from backend.review.outcome import ReviewOutcome
from backend.review.sampling import Draw
from backend.scoring.results import ItemResult

__all__ = ["RAW", "CALIBRATED", "OPEN", "JudgeInputs", "calibrated_scores", "settled_strata", "control_strata"]

RAW = "1 − the ensemble's probability of the label"
CALIBRATED = "calibrated on the control sample, cross-fitted (logistic, 5 folds)"
OPEN = "a drawn item is not settled yet; the judge-assisted interval waits for every one"


@dataclass(frozen=True)
class JudgeInputs:
    """The strata for :func:`backend.estimates.judge_assisted.judge_assisted_rate` (None with ``reason``)."""

    strata: tuple[StratumSample, ...] | None
    reason: str = ""
    scores: str = RAW
    open_items: int = 0  # drawn items without a settled verdict yet


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


def settled_strata(raw: np.ndarray, rows: Sequence[tuple[int, bool, str, float]],
                   sizes: Mapping[str, int], *, calibrate: bool = True) -> JudgeInputs:
    """The strata from every item's ``raw`` score and the settled ``rows`` (item index, wrong, stratum, 1/π).

    ``sizes``: the draw's stratum sizes N_h; ``calibrate=False`` keeps the raw scores (the bench's fast path).
    """
    if not rows:
        return JudgeInputs(None, "no item drawn")
    idx, wrong, names, weights = zip(*rows)
    if calibrate:
        scores, total, basis = calibrated_scores(raw, idx, wrong, weights)
    else:
        scores, total, basis = np.asarray(raw, float)[list(idx)], float(np.sum(raw)), RAW
    by_name: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        by_name.setdefault(name, []).append(j)
    if set(by_name) != {n for n, size in sizes.items() if size}:
        return JudgeInputs(None, "a stratum of the design has no drawn item")
    # the mean score times each stratum's size: the draw may count another set of items than this view
    strata = tuple(StratumSample(population=sizes[name], score_total=min(total * sizes[name] / len(raw),
                                                                         float(sizes[name])),
                                 scores=tuple(float(scores[j]) for j in members),
                                 wrong=tuple(bool(wrong[j]) for j in members), name=name)
                   for name, members in sorted(by_name.items()))
    return JudgeInputs(strata, scores=basis)


def control_strata(results: Sequence[ItemResult], draw: Draw | None, outcomes: Mapping[str, ReviewOutcome], *,
                   is_error: Callable[[str, str], bool]) -> JudgeInputs:
    """The review store's view (what the push and ``review status`` read): ledger results, draw, outcomes."""
    if draw is None:
        return JudgeInputs(None, "no random sample drawn (review push --sample N or --until-width W)")
    items = list(results)  # the report's view: every audited item, an unscored one with score 0
    position = {str(r.id): k for k, r in enumerate(items)}
    raw = np.array([wrong_score(r) or 0.0 for r in items])
    rows, open_items = [], 0
    for drawn in draw.items:
        k = position.get(drawn.task_id)
        if k is None:
            return JudgeInputs(None, f"drawn item {drawn.task_id} is not among the audited items")
        outcome = outcomes.get(drawn.task_id)
        if outcome is None or outcome.gold is None or not outcome.status.settled:
            open_items += 1
            continue
        rows.append((k, is_error(str(outcome.gold), str(items[k].original)), drawn.stratum,
                     1.0 / drawn.inclusion_probability))
    if open_items:
        return JudgeInputs(None, OPEN, open_items=open_items)
    return settled_strata(raw, rows, draw.strata)
