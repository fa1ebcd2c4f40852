"""The *Label errors* section's judge-assisted rows: the error rate with the judges' scores on every item.

Beside the design-only estimate (:mod:`stats_cli.stats.design_estimate`, the experts' sample alone) the
section shows the same figures from the judges' P(label wrong) on every audited item corrected by the
settled control sample (:func:`stats_cli.stats.judge_assisted.judge_assisted_rate`; scores from
:func:`stats_cli.sources.judge_scores.judge_strata`). It reads the same inputs as the design-only rows
(the draw and the experts' verdicts), so either can change without the other; per control it runs on
each control's view like every section. PENDING while a drawn item is open.
"""

from __future__ import annotations

from typing import Any

from backend.api import WidthTarget, more_reviews_line
from stats_cli.sources.audit_data import AuditData
from stats_cli.sources.judge_scores import judge_strata
from stats_cli.stats.judge_assisted import TARGETS, JudgeAssisted, judge_assisted_rate

from .model import Cell

__all__ = ["judge_rows"]

NAMES = ("error rate over the N items with the judges' scores (%)",
         "errors among the N items with the judges' scores (count)")


def _beside(result: JudgeAssisted, design: Any) -> str:
    """The judge-assisted width against the design-only row above (a random draw there is post-stratified by the flag)."""
    if design is None or design.high <= design.low:
        return ""
    ratio = (result.with_judges.high - result.with_judges.low) / (design.high - design.low)
    return (f" Against the design-only row above ({100 * design.low:.1f}–{100 * design.high:.1f} %; a random draw is "
            f"post-stratified there by the flag, itself a use of the judges): {ratio:.2f} × its width.")


def _note(result: JudgeAssisted, scores: str) -> str:
    if not result.used_judges:
        return (f"With the judges' scores: the design-only interval (λ = 0), because {result.reason}. It rests on the "
                "experts' sample alone.")
    ratio = result.width_ratio
    base = result.design_only
    narrower = ("" if ratio is None else
                f" It is {ratio:.2f} × the width of the sample alone (λ = 0: {100 * base.low:.1f}–{100 * base.high:.1f} %, "
                f"{100 * (1 - ratio):.0f} % narrower).")
    return (f"With the judges' scores: every audited item's P(label wrong) ({scores}) corrected by the "
            f"{result.sample} settled control items (difference estimator, λ = {result.lam:.2f}, finite population "
            "correction, jackknife t interval). Valid whatever the judges' quality: it rests on the random draw, "
            f"not on the judges being right.{narrower}")


def _plan(result: JudgeAssisted | None, reason: str = "") -> str:
    """"About N more reviews to reach ±2 / ±3 points" from the current residual variance, or PENDING with why."""
    lines = [more_reviews_line(result, WidthTarget(points=100 * t), reason=reason) for t in TARGETS]
    if result is None:
        return "; ".join(lines) + "."
    totals = []
    for target in TARGETS:
        plan = result.reviews_for(target)
        if plan["design_only"] is not None and plan["with_judges"] is not None:
            totals.append(f"±{100 * target:g} points: about {plan['with_judges']} reviews in all, "
                          f"{plan['design_only']} without the judges")
    tail = ("" if not totals else " (" + "; ".join(totals) + ")")
    return ("; ".join(lines) + tail + ". Planned from this sample; `review push --until-width W` draws them in "
            "batches of 50 and stops at the target (its coverage measured in docs/statistics.md).")


def judge_rows(data: AuditData, *, confidence: float,
               design: Any = None) -> tuple[list[tuple[Cell, ...]], list[str], dict[str, Any] | None]:
    """(table rows, notes, JSON values) of the judge-assisted estimate; PENDING rows when it has no basis.

    ``design``: the design-only row's rate interval (anything with ``low``/``high``), compared in the note.
    """
    inputs = judge_strata(data)
    if inputs.strata is None:
        return ([(name, "PENDING", None, None, None, inputs.reason) for name in NAMES], [_plan(None, inputs.reason)],
                None)
    result = judge_assisted_rate(inputs.strata, confidence=confidence)
    n = result.population
    est = result.with_judges
    basis = (f"{result.sample} settled control items and the judges' scores on all {n} items" if result.used_judges
             else f"{result.sample} settled control items (judges not used)")
    rows: list[tuple[Cell, ...]] = [(NAMES[0], 100 * est.value, 100 * est.low, 100 * est.high, result.sample, basis),
                                    (NAMES[1], n * est.value, n * est.low, n * est.high, result.sample, basis)]
    note = _note(result, inputs.scores) + (_beside(result, design) if result.used_judges else "")
    notes = [note, _plan(result)]
    return rows, notes, {**result.to_json(), "scores": inputs.scores}
