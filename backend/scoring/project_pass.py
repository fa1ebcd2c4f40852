"""What is decided over a project's outputs as a whole: the health gate, then the class-prior correction (opt-in).

Both read every result judged together (a `score` run's file, an audit's stored results of the project), so they
run after the items are scored, never item by item: the verdict of an item then depends on the project, not on
where it fell in the stream or in a worker's batch. Health is read from the judges' own answers (before any
correction); the gate's members are then left out of the corrected ensemble too.
"""

from __future__ import annotations

from typing import Any, Iterable

from backend.scoring.class_reach import REACH_FAMILIES, class_reach
from backend.scoring.ensemble import VerdictRule
from backend.scoring.health_gate import GATED_FAMILIES, gate_results
from backend.scoring.member_health import HealthTally
from backend.scoring.prior_shift import check_mode, correct_results
from backend.scoring.results import ItemResult

__all__ = ["FITTED_FAMILIES", "MIN_CORRECTED_ITEMS", "corrects", "project_pass"]

#: A correction divides out each judge's mean answer over the run (or re-estimates a prior from it): on a handful
#: of items that mean is mostly the items themselves, and dividing it out erases what the judge said (one item:
#: every answer becomes the target prior, and nothing can be flagged). 30 items keep a class's mean answer within
#: about ±0.09 (binomial standard error at 0.5, 1.96 x 0.5 / sqrt(30)).
MIN_CORRECTED_ITEMS = 30
#: ``fitted`` (and ``auto``, which may choose it) reads grades as unordered classes; it was measured on nominal and
#: binary sets only, so an ordinal task keeps its judges' average (the other modes re-weight an ordinal judge's
#: answers as they are asked).
FITTED_FAMILIES = frozenset({"binary", "nominal"})


def corrects(mode: str, family: str) -> bool:
    """Whether ``mode`` re-reads the verdicts of a ``family`` task at all (an audit then holds the project's results
    for its last pass; otherwise it reads them page by page)."""
    return mode != "none" and family in (FITTED_FAMILIES if mode in ("fitted", "auto") else GATED_FAMILIES)


def project_pass(results: Iterable[ItemResult], rule: VerdictRule, *, prior_correction: str = "none",
                 health: HealthTally | None = None) -> tuple[list[ItemResult], dict[str, Any]]:
    """``results`` with their verdicts re-read (gate, then correction) and the summary's block saying what was done.

    ``health`` is the tally already folded over these results (the caller's), else one is folded here. A
    single-choice run's blocks also hold ``class_reach`` (:mod:`backend.scoring.class_reach`): the verdicts it
    returns, per class, against the run's own labels.
    """
    final, info = _reread(results, rule, prior_correction=prior_correction, health=health)
    if rule.spec.family in REACH_FAMILIES:
        info["class_reach"] = class_reach(final, rule.spec.labels)
    return final, info


def _reread(results: Iterable[ItemResult], rule: VerdictRule, *, prior_correction: str,
            health: HealthTally | None) -> tuple[list[ItemResult], dict[str, Any]]:
    check_mode(prior_correction)
    results = list(results)
    gated, gate = gate_results(results, rule, health=health)
    info: dict[str, Any] = {"health_gate": gate.to_dict(), "prior_correction": {"mode": prior_correction}}
    if prior_correction == "none":
        return gated, info
    if not corrects(prior_correction, rule.spec.family):
        info["prior_correction"]["note"] = f"the {rule.spec.family} family is not corrected"
        return gated, info
    scored = sum(r.prediction is not None for r in results)
    if scored < MIN_CORRECTED_ITEMS:
        reads = {"fitted": "fits a model of the run's labels",
                 "auto": "chooses a reading by its agreement with the run's labels"}.get(
            prior_correction, "reads each judge's mean answer over the run")
        info["prior_correction"]["note"] = (f"not applied: {scored} scored items; a correction {reads} and needs at "
                                            f"least {MIN_CORRECTED_ITEMS}")
        return gated, info
    if prior_correction == "auto":  # the gate's verdicts are one of the candidates: not computed twice
        from backend.scoring.correction_choice import choose_correction

        corrected, fit = choose_correction(results, gated, rule, left_out=gate.left_out)
        info["prior_correction"] = fit
        return corrected, info
    corrected, fit = correct_results(results, rule, mode=prior_correction, left_out=gate.left_out)
    info["prior_correction"] = fit
    if fit.get("note"):  # the labels could not support the fit: the gate's verdicts stand
        return gated, info
    return corrected, info
