"""The flag cut fitted on the review: the smallest score at which the calibrated P(label wrong) reaches 0.5.

The engine flags an item when its argmax disagrees with the label and the averaged confidence exceeds a
fixed threshold (:func:`backend.scoring.ensemble.decide`; 0.55 for binary tasks, 0.45 for nominal ones). That threshold
is a guess about a judge nobody has measured yet. Once the experts have settled enough of the control
sample, the review's calibration (:mod:`backend.review.calibration`, design-weighted, so it describes the
project and not the sample) says where flagging becomes more often right than wrong: the smallest score
``s*`` with calibrated P(wrong | s*) ≥ 0.5. This module reports that cut with what it rests on (method,
reviewed control items, wrong and right among them) and what it would change over the project's scored
items (flagged items below it, unflagged items at or above it), or PENDING with the calibration's own
reason (:func:`backend.review.calibration.not_enough`): it never invents a number. The engine's rule is
not changed: the lead reads the fitted figure beside its basis and decides (issue 42).

Why the cut is expressed in the calibration's score, 1 − P(original label)
(:func:`backend.review.active.wrong_score`), and not in the engine's confidence: that is the score the
calibration is fitted on, so the cut needs no translation. For a binary task it is the same number as the
confidence threshold (the argmax disagrees exactly when 1 − P(label) > 0.5, and then the confidence *is*
1 − P(label)). For K > 2 labels it is the mass against the label, spread over the other labels, which the
argmax's confidence does not measure: an item with P(label) = 0.4 and two rivals at 0.3 scores 0.6 though
its argmax agrees with the label. The fitted rule is therefore "score ≥ s*", whatever the argmax says; on an
ordinal scale the score is the mass beyond the flag's delta (the family's ``is_error`` rule), as in the
calibration. Items the engine kept unflagged for want of a quorum (``insufficient``) stay out of the counts:
the fitted cut replaces the threshold, not the quorum.

The score source is a parameter (``source``, :data:`backend.review.active.ScoreSource`): by default the
ensemble's probabilities, or one member's, so the same rule and calibration give the confident-learning
member its own cut (:mod:`backend.review.member_cut`), still compared with the ensemble's current flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from backend.review.active import ControlSample, ErrorRule, ScoreSource, control_sample, wrong_score
from backend.review.calibration import Calibration, fit_calibration, not_enough
from backend.review.outcome import ReviewOutcome
from backend.review.sampling import Draw
from backend.scoring.results import ItemResult

__all__ = ["CUT_PROBABILITY", "ENSEMBLE_CUT", "FittedCut", "crossing", "fitted_flag_cut", "fitted_cut_line",
           "score_name"]

#: Flagging an item is more often right than wrong once its calibrated P(label wrong) reaches this.
CUT_PROBABILITY = 0.5
#: The cut lies at or below the lowest reviewed score / the calibrated P never reaches 0.5.
BELOW_RANGE, NEVER = "below", "never"
#: How a line names the ensemble's cut (a member's line names the member instead), and why there is none yet.
ENSEMBLE_CUT, NO_SAMPLE = "Flag cut fitted on the review", "PENDING: no control sample drawn (review push --sample N)"


def score_name(family: str | None = None) -> str:
    """How a line names the score: 1 − P(label), or on an ordinal scale the mass the flag rule counts."""
    return "P(label wrong by the flag rule)" if family == "ordinal" else "1 − P(label)"


@dataclass(frozen=True)
class FittedCut:
    """The fitted flag cut (``cut``), or why there is none (``reason``: PENDING; ``edge``: outside the range).

    ``n``, ``wrong`` and ``right`` count the reviewed control items the fit rests on (unweighted; the fit
    itself weighs each by its design weight). ``more`` / ``fewer``: unflagged items at or above the cut /
    flagged items below it, over ``scored`` items with a score; None when no cut was fitted.
    """

    cut: float | None
    method: str
    n: int
    wrong: int
    reason: str | None = None
    edge: str | None = None
    more: int | None = None
    fewer: int | None = None
    scored: int = 0
    top_probability: float | None = None  # the calibrated P(wrong) at the highest reviewed score

    @property
    def right(self) -> int:
        return self.n - self.wrong

    @property
    def pending(self) -> bool:
        return self.reason is not None

    def line(self, *, score: str | None = None, subject: str = ENSEMBLE_CUT) -> str:
        """One line for ``review status`` and the report: the cut with its basis, or PENDING with the reason."""
        if self.reason is not None:
            return f"{subject}: {self.reason}"
        name = score or score_name()
        basis = f"{self.method}, {self.n} reviewed control items, {self.wrong} wrong"
        if self.cut is None:
            top = "" if self.top_probability is None else f" (at most {self.top_probability:.2f})"
            return (f"{subject}: none — the calibrated P(label wrong) stays below "
                    f"{CUT_PROBABILITY:g}{top} over every reviewed score ({basis}); flagging by it would unflag "
                    f"{self.fewer} of {self.scored} scored items")
        where = " (already at the lowest reviewed score: the cut may lie lower)" if self.edge == BELOW_RANGE else ""
        return (f"{subject}: {name} ≥ {self.cut:.2f}{where} ({basis}) — would flag "
                f"{self.more} more, unflag {self.fewer} (of {self.scored} scored items; the engine's rule is unchanged)")

    def to_json(self) -> dict[str, Any]:
        return {"cut": None if self.cut is None else round(self.cut, 4), "method": self.method, "n": self.n,
                "wrong": self.wrong, "right": self.right, "reason": self.reason, "edge": self.edge,
                "would_flag_more": self.more, "would_unflag": self.fewer, "scored": self.scored,
                "top_probability": None if self.top_probability is None else round(self.top_probability, 4)}


def _isotonic_crossing(model: Any, level: float) -> tuple[float | None, str | None]:
    """Where the isotonic fit (piecewise linear between its knots, flat outside them) first reaches ``level``."""
    xs, ys = np.asarray(model.X_thresholds_, dtype=float), np.asarray(model.y_thresholds_, dtype=float)
    above = np.flatnonzero(ys >= level)
    if not len(above):
        return None, NEVER
    j = int(above[0])
    if j == 0:
        return float(xs[0]), BELOW_RANGE
    x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
    return float(x0 + (level - y0) * (x1 - x0) / (y1 - y0)), None  # y0 < level <= y1: no division by zero


def _logistic_crossing(model: Any, level: float, low: float) -> tuple[float | None, str | None]:
    """Where sigmoid(a·s + b) reaches ``level``, within the score's range [0, 1]."""
    a, b = float(model.coef_[0][0]), float(model.intercept_[0])
    logit = float(np.log(level / (1.0 - level)))
    if a <= 0:  # P(wrong) does not rise with the score: reached everywhere or nowhere
        return (low, BELOW_RANGE) if b >= logit else (None, NEVER)
    cut = (logit - b) / a
    if cut > 1.0:
        return None, NEVER
    return (low, BELOW_RANGE) if cut <= low else (cut, None)


def crossing(fit: Calibration, scores: np.ndarray, *, level: float = CUT_PROBABILITY) -> tuple[float | None, str | None]:
    """The smallest score at which ``fit``'s P(wrong) reaches ``level``, and whether it lies outside the range.

    Read off the fitted model itself (the isotonic knots, the logistic coefficients) so the cut is exactly
    where :meth:`Calibration.predict` crosses ``level``, not a grid's approximation.
    """
    if fit.method == "isotonic":
        return _isotonic_crossing(fit.model, level)
    if fit.method == "logistic":
        return _logistic_crossing(fit.model, level, float(np.min(scores)))
    raise ValueError(f"no crossing rule for calibration method {fit.method!r}")


def _changes(results: Sequence[ItemResult], cut: float | None, is_error: ErrorRule | None,
             source: ScoreSource | None) -> tuple[int, int, int]:
    """(items the engine left unflagged at or above the cut, items it flagged below it, items with a score)."""
    more = fewer = scored = 0
    for item in results:
        score = (None if item.prediction is None or item.insufficient
                 else wrong_score(item, is_error=is_error, source=source))
        if score is None:
            continue
        scored += 1
        fitted = cut is not None and score >= cut
        more += int(fitted and not item.flagged)
        fewer += int(item.flagged and not fitted)
    return more, fewer, scored


def fitted_flag_cut(results: Sequence[ItemResult], control: ControlSample, *, is_error: ErrorRule | None = None,
                    method: str = "isotonic", calibration: Calibration | None = None,
                    source: ScoreSource | None = None) -> FittedCut:
    """The flag cut the settled control sample supports, and what it would change over ``results``.

    ``control``: :func:`backend.review.active.control_sample` (scores, wrong, design weights); ``is_error``
    and ``source``: the same rule and score source that built it, so the results are scored as the control
    items were. ``calibration``: the fit already made on ``control`` (the report's active ranking has one),
    else fitted here by ``method``.
    """
    n, wrong = len(control.wrong), int(np.sum(control.wrong))
    reason = not_enough(control.wrong)
    if reason:
        return FittedCut(None, method, n, wrong, reason=reason)
    fit = calibration or fit_calibration(control.scores, control.wrong, weights=control.weights, method=method)
    if fit.n != n:
        raise ValueError(f"the calibration rests on {fit.n} control items, the control sample holds {n}")
    cut, edge = crossing(fit, np.asarray(control.scores, dtype=float))
    more, fewer, scored = _changes(results, cut, is_error, source)
    top = float(fit.predict(np.array([float(np.max(control.scores))]))[0])
    return FittedCut(cut, fit.method, n, wrong, edge=edge, more=more, fewer=fewer, scored=scored, top_probability=top)


def fitted_cut_line(results: Sequence[ItemResult], draw: Draw | None, outcomes: Mapping[str, ReviewOutcome], *,
                    is_error: ErrorRule | None = None, family: str | None = None) -> tuple[str, FittedCut | None]:
    """``review status``'s line (and the figure for ``--json``; None without a control sample)."""
    if draw is None:
        return f"{ENSEMBLE_CUT}: {NO_SAMPLE}", None
    fitted = fitted_flag_cut(results, control_sample(results, draw, outcomes, is_error=is_error), is_error=is_error)
    return fitted.line(score=score_name(family)), fitted
