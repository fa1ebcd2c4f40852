"""Active review: the unreviewed suspects ranked by the calibrated probability that their label is wrong.

The calibration rests on the control sample only (items drawn by ``review push --sample N``, each weighted
by the inverse of its inclusion probability), never on flagged items the experts happened to review: those
are not a random sample of anything. Score of an item = the ensemble's probability mass on the labels that
make its label an error by the family's rule (``is_error``: any other label by default; on an ordinal scale
a grade beyond delta), and the control items' "wrong" is the same rule applied to the experts' gold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from backend.scoring.results import ItemResult
from backend.review.calibration import Calibration, fit_calibration, not_enough
from backend.review.outcome import ReviewOutcome
from backend.review.sampling import Draw


#: ``(gold, original) -> bool``: the original label is wrong (``backend.scoring.ensemble.label_error``).
ErrorRule = Callable[[str, str], bool]
#: The probabilities an item is scored by: the ensemble's (``item.probs``) by default, or one member's
#: (:func:`backend.review.member_cut.member_probs`), so one calibration code serves both.
ScoreSource = Callable[[ItemResult], Optional[Mapping[str, float]]]


def _exact(gold: str, original: str) -> bool:
    return gold != original


def wrong_score(item: ItemResult, *, is_error: ErrorRule | None = None,
                source: ScoreSource | None = None) -> float | None:
    """The ensemble's (or ``source``'s) probability that the item's label is an error by ``is_error`` (None
    without a verdict or a label); by default 1 - the probability of the label itself."""
    probs = item.probs if source is None else source(item)
    if probs is None or item.original is None:
        return None
    if is_error is None:
        return 1.0 - float(probs.get(item.original, 0.0))
    return float(sum(float(p) for label, p in probs.items() if is_error(str(label), str(item.original))))


@dataclass(frozen=True)
class ControlSample:
    """The settled control items: their ids, scores, whether the experts found the label wrong, design weights."""

    ids: tuple[str, ...] = ()
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    wrong: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))


def control_sample(results: Sequence[ItemResult], draw: Draw | None, outcomes: Mapping[str, ReviewOutcome], *,
                   is_error: ErrorRule | None = None, source: ScoreSource | None = None) -> ControlSample:
    """The drawn items the experts settled and the ensemble (or ``source``) scored (wrong: ``is_error``, by
    default any difference)."""
    wrong = is_error or _exact
    if draw is None:
        return ControlSample()
    by_id = {str(r.id): r for r in results}
    rows = []
    for drawn in draw.items:
        item, outcome = by_id.get(drawn.task_id), outcomes.get(drawn.task_id)
        score = None if item is None else wrong_score(item, is_error=is_error, source=source)
        if score is None or outcome is None or outcome.gold is None or not outcome.status.settled:
            continue
        rows.append((drawn.task_id, score, wrong(str(outcome.gold), str(item.original)),
                     1.0 / drawn.inclusion_probability))
    if not rows:
        return ControlSample()
    ids, scores, wrong, weights = zip(*rows)
    return ControlSample(tuple(ids), np.array(scores), np.array(wrong, bool), np.array(weights))


@dataclass(frozen=True)
class ActiveRanking:
    """The calibration (None, with ``reason``, while the control sample is too small) and the ranked suspects."""

    calibration: Calibration | None
    reason: str | None
    ranked: tuple[tuple[str, float], ...] = ()  # (task id, calibrated P(label wrong)), most likely first


def rank_suspects(results: Sequence[ItemResult], control: ControlSample, *, reviewed: set[str],
                  method: str = "isotonic", is_error: ErrorRule | None = None) -> ActiveRanking:
    """Fit on the control sample, then rank the flagged items not yet in review by calibrated probability."""
    reason = not_enough(control.wrong)
    if reason:
        return ActiveRanking(None, reason)
    fit = fit_calibration(control.scores, control.wrong, weights=control.weights, method=method)
    todo = [(str(r.id), wrong_score(r, is_error=is_error)) for r in results if r.flagged and str(r.id) not in reviewed]
    todo = [(i, s) for i, s in todo if s is not None]
    if not todo:
        return ActiveRanking(fit, None)
    probs = fit.predict(np.array([s for _, s in todo]))
    order = sorted(range(len(todo)), key=lambda k: (-probs[k], -todo[k][1], todo[k][0]))
    return ActiveRanking(fit, None, tuple((todo[k][0], round(float(probs[k]), 4)) for k in order))
