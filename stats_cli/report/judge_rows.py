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


def _plan(result: JudgeAssisted) -> str:
    """How many more reviews reach ±2 and ±3 points, planned from the current sample (both estimates)."""
    parts = []
    for target in TARGETS:
        plan = result.reviews_for(target)
        if plan["design_only"] is None or plan["with_judges"] is None:
            continue
        more = max(plan["with_judges"] - result.sample, 0)
        parts.append(f"±{100 * target:g} points: about {plan['with_judges']} reviews in all ({more} more), "
                     f"{plan['design_only']} without the judges")
    if not parts:
        return ""
    return ("Reviews to reach a target width, planned from this sample (a fixed plan: draw them, then read the "
            "interval; stopping early when it looks narrow would not keep the coverage): " + "; ".join(parts) + ".")


def judge_rows(data: AuditData, *, confidence: float,
               design: Any = None) -> tuple[list[tuple[Cell, ...]], list[str], dict[str, Any] | None]:
    """(table rows, notes, JSON values) of the judge-assisted estimate; PENDING rows when it has no basis.

    ``design``: the design-only row's rate interval (anything with ``low``/``high``), compared in the note.
    """
    inputs = judge_strata(data)
    if inputs.strata is None:
        return [(name, "PENDING", None, None, None, inputs.reason) for name in NAMES], [], None
    result = judge_assisted_rate(inputs.strata, confidence=confidence)
    n = result.population
    est = result.with_judges
    basis = (f"{result.sample} settled control items and the judges' scores on all {n} items" if result.used_judges
             else f"{result.sample} settled control items (judges not used)")
    rows: list[tuple[Cell, ...]] = [(NAMES[0], 100 * est.value, 100 * est.low, 100 * est.high, result.sample, basis),
                                    (NAMES[1], n * est.value, n * est.low, n * est.high, result.sample, basis)]
    note = _note(result, inputs.scores) + (_beside(result, design) if result.used_judges else "")
    notes = [note] + ([_plan(result)] if _plan(result) else [])
    return rows, notes, {**result.to_json(), "scores": inputs.scores}
