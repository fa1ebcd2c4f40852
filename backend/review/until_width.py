"""Review until sure: the target, the plan computed up front, and the rule that says when to stop drawing.

The target is a **half-width** on the project's error rate, in percentage points (``--until-width 2``: the
95 % interval is at most ±2 points), or on the number of errors (``--until-width 40errors``: at most ±40
errors, i.e. ±40/N on the rate). Half-width, because that is how a lead states precision ("5 % ± 2").

Two rules (:data:`RULES`), measured in ``bench/bench_until_width.py`` (table in docs/statistics.md):

* ``fixed`` — the sample size is planned up front from the judges' scores alone, before any verdict
  (:func:`planned_reviews`: the stratified difference estimator's variance if the scores were calibrated,
  Σ W_h S_h with S_h² = mean s(1 − s)), drawn, and the interval read once every drawn item is settled.
  The size depends on no verdict, so the interval keeps its coverage; the width is what the judges'
  calibration makes it.
* ``two-stage`` — Stein's two-stage procedure (Stein 1945): a first batch (the pilot), then, once it is
  settled, the size the target needs read off the pilot's interval (:func:`second_stage_size`), drawn in
  one step, and the interval read once more. The size uses the pilot's *variance*, never where its estimate
  fell, so it adapts to the judges' real quality (the fixed plan cannot) while looking at the data once.
* ``sequential`` — draw a batch, wait for its verdicts, stop as soon as the judge-assisted interval is
  within the target, else draw the next batch. Stopping when an interval *happens* to be narrow can lose
  coverage; measured, it did not here (0.943–0.998 at 300 and 600 replicates, rare errors and judges at
  chance included, where the fixed and two-stage rules fell to 0.937 / 0.938 once): the interval's own
  margins (the t quantile on min(n − H, errors, right labels) degrees of freedom, the exact fall-back below
  5 errors) and one look per batch of 50 absorb it. It alone met the target in every run, with the fewest
  reviews: the default (``UNTIL_WIDTH_RULE``).

:func:`more_reviews` projects how many more reviews reach the target from the current interval
(:func:`backend.estimates.judge_assisted.reviews_for`: the residual variance read off the current width).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping

from scipy.stats import norm

from backend.estimates.judge_assisted import JudgeAssisted, reviews_for
from backend.review.spread_design import spread_strata, stratum_spreads

__all__ = ["RULES", "FIXED", "TWO_STAGE", "SEQUENTIAL", "WidthTarget", "planned_reviews", "more_reviews",
           "more_reviews_line", "second_stage_size", "next_size"]

FIXED, TWO_STAGE, SEQUENTIAL = "fixed", "two-stage", "sequential"
RULES = (FIXED, TWO_STAGE, SEQUENTIAL)
_ERRORS = re.compile(r"^\s*±?\s*([0-9]*\.?[0-9]+)\s*errors?\s*$")
_POINTS = re.compile(r"^\s*±?\s*([0-9]*\.?[0-9]+)\s*(?:points?|%)?\s*$")


@dataclass(frozen=True)
class WidthTarget:
    """A target half-width: ``points`` on the error rate (2 = ±2 points) or ``errors`` on the count of errors."""

    points: float | None = None
    errors: float | None = None

    def __post_init__(self) -> None:
        if (self.points is None) == (self.errors is None):
            raise ValueError("a target is either points on the rate or a number of errors")
        if self.points is not None and not 0 < self.points < 50:
            raise ValueError(f"--until-width in points must lie in (0, 50), got {self.points:g}")
        if self.errors is not None and self.errors <= 0:
            raise ValueError(f"--until-width in errors must be > 0, got {self.errors:g}")

    @classmethod
    def parse(cls, text: str) -> "WidthTarget":
        """``"2"``, ``"±2"``, ``"2points"`` → ±2 points; ``"40errors"`` → ±40 errors (ValueError otherwise)."""
        if (m := _ERRORS.match(text)) is not None:
            return cls(errors=float(m.group(1)))
        if (m := _POINTS.match(text)) is not None:
            return cls(points=float(m.group(1)))
        raise ValueError(f"--until-width takes a half-width in points (2 = ±2 points) or errors (40errors), "
                         f"got {text!r}")

    def rate(self, population: int) -> float:
        """The half-width on the rate for a project of ``population`` items."""
        if self.points is not None:
            return self.points / 100
        if population <= 0:
            raise ValueError("a target in errors needs at least one audited item")
        return min(float(self.errors or 0) / population, 0.5)

    def describe(self) -> str:
        return f"±{self.points:g} points" if self.points is not None else f"±{self.errors:g} errors"

    def to_json(self) -> dict[str, float | None]:
        return {"points": self.points, "errors": self.errors}


def planned_reviews(scores: Mapping[str, float], half_width: float, *, confidence: float = 0.95) -> int:
    """Reviews the spread design needs for ±``half_width``, from the scores alone (no verdict seen).

    With Neyman allocation the difference estimator's variance is (Σ W_h S_h)² / n − Σ W_h S_h² / N; S_h² is
    the residual variance if the scores were calibrated (E[(y − s)²] = E[s(1 − s)]). Solved for n and capped
    at N. Judges worse than their scores claim leave the final interval wider than the target (never
    less valid); judges better than they claim leave it narrower.
    """
    if not 0 < half_width < 1:
        raise ValueError(f"half_width must be in (0, 1), got {half_width}")
    total = len(scores)
    if total == 0:
        return 0
    strata = spread_strata(scores)
    spread = stratum_spreads(scores, strata)
    weights = {h: len(ids) / total for h, ids in strata.items()}
    mean_s = sum(weights[h] * spread[h] for h in spread)
    mean_s2 = sum(weights[h] * spread[h] ** 2 for h in spread)
    z = float(norm.ppf(0.5 + confidence / 2))
    need = mean_s ** 2 / ((half_width / z) ** 2 + mean_s2 / total)
    return int(min(total, math.ceil(need)))


def more_reviews(result: JudgeAssisted, half_width: float) -> int | None:
    """More reviews (beyond the settled ones) that reach ±``half_width``; 0 when reached, None without a basis."""
    est = result.with_judges
    current = (est.high - est.low) / 2
    if current <= half_width:
        return 0
    need = reviews_for(half_width, current=current, n=result.sample, population=result.population,
                       confidence=result.confidence)
    return None if need is None else max(need - result.sample, 1)


def more_reviews_line(result: JudgeAssisted | None, target: WidthTarget, *, reason: str = "") -> str:
    """"about N more reviews to reach ±W" (or "reached", or "PENDING: why") for the status and the report."""
    if result is None:
        return f"reviews to reach {target.describe()}: PENDING ({reason or 'no settled control sample'})"
    half = target.rate(result.population)
    est = result.with_judges
    now = f"now ±{100 * (est.high - est.low) / 2:.1f} points on {result.sample} reviews"
    more = more_reviews(result, half)
    if more == 0:
        return f"{target.describe()} reached ({now})"
    if more is None:
        return f"reviews to reach {target.describe()}: PENDING (the current interval has no width to read; {now})"
    return f"about {more} more reviews to reach {target.describe()} ({now}, read off the residual variance)"


def next_size(*, drawn: int, population: int, batch: int, result: JudgeAssisted | None, half_width: float) -> int:
    """The sequential rule's next sample size in all: ``drawn`` once the target is reached, else one more batch
    (a whole batch even when the projection says fewer: each look at the data is a chance to stop on a lucky
    narrow interval, so the rule looks once per batch), never more than ``population``."""
    if batch < 1:
        raise ValueError("the batch must be at least 1")
    if result is not None and more_reviews(result, half_width) == 0:
        return drawn
    return min(population, drawn + batch)


def second_stage_size(*, pilot: int, population: int, result: JudgeAssisted | None, half_width: float) -> int:
    """The two-stage rule's size in all: the pilot plus :func:`more_reviews` from the pilot's interval (the pilot
    alone when that interval has no width to read)."""
    more = None if result is None else more_reviews(result, half_width)
    return pilot if more is None else min(population, pilot + more)
