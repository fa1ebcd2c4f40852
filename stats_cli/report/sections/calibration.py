"""Calibrated by the review: P(label wrong | ensemble output) fitted on the settled control sample.

Shows the fit's cross-validated quality (average precision and precision by threshold over the control
items, design-weighted), the flag cut fitted on it (where the calibrated P(label wrong) reaches 0.5, and
how many flags it would add and remove: :mod:`backend.review.fitted_threshold`; the engine's own threshold
is not changed) and beside it each confident-learning member's own cut on its own score
(:mod:`backend.review.member_cut`), the unreviewed suspects ranked by it (what ``review push --next N``
sends), and, with two models or more, learnt member weights (stacking) against plain averaging with the
gain's interval. PENDING until the control sample holds enough settled items (:mod:`backend.review.calibration`).
"""

from __future__ import annotations

import numpy as np

from backend.api import ControlSample, control_sample, fitted_flag_cut, label_error, member_cuts, rank_suspects
from backend.api import score_name
from backend.api import MIN_PER_OUTCOME, MIN_REVIEWED, stacking_gain

from ..inputs import AuditData
from ..model import Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "calibration", "Calibrated by the review"
TOP = 10


def _model_scores(data: AuditData, ids: tuple[str, ...]) -> tuple[list[str], np.ndarray] | None:
    """Per control item, each model's 1 - P(label) (its prompts averaged); None with fewer than two models."""
    by_id = {str(it.id): it for it in data.items}
    models = sorted({m.member_id.rsplit("/", 1)[0] for it in data.items for m in it.members if m.probs})
    if len(models) < 2:
        return None
    rows = []
    for i in ids:
        item = by_id[i]
        row = []
        for model in models:
            answers = [m.probs.get(item.original, 0.0) for m in item.members
                       if m.probs and m.member_id.rsplit("/", 1)[0] == model]
            row.append(1.0 - float(np.mean(answers)) if answers else 0.5)
        rows.append(row)
    return models, np.array(rows)


def _stacking_note(data: AuditData, control: ControlSample) -> tuple[str, dict | None]:
    scores = _model_scores(data, control.ids)
    if scores is None:
        return "Stacking: NOT APPLICABLE (one model; plain averaging of its prompts).", None
    models, matrix = scores
    gain = stacking_gain(matrix, control.wrong, weights=control.weights)
    verdict = ("shown better on this sample" if gain["stacking_shown_better"]
               else "not shown better: plain averaging stays the default")
    return (f"Stacking ({', '.join(models)}; logistic, cross-validated on the {gain['n']} control items): AP "
            f"{gain['ap_stacked']:.3f} vs plain averaging {gain['ap_average']:.3f}, gain {gain['gain']:+.3f} "
            f"(95% bootstrap {gain['gain_ci95'][0]:+.3f} to {gain['gain_ci95'][1]:+.3f}); {verdict}.", gain)


def calibration_section(data: AuditData) -> Section:
    outcomes = {str(it.id): data.outcome(it) for it in data.items}
    is_error = lambda gold, original: label_error(gold, original, data.spec)  # noqa: E731 - the family's rule
    control = control_sample(data.items, data.sample, outcomes, is_error=is_error)
    sizes = {"control items settled": len(control.ids), "wrong labels among them": int(control.wrong.sum())}
    if data.sample is None:
        return pending(KEY, TITLE, "no control sample drawn (review push --sample N)", sizes=sizes)
    reviewed = set(data.routed) | set(data.reviews) | set(data.sampled)
    ranking = rank_suspects(data.items, control, reviewed=reviewed, is_error=is_error)
    if ranking.calibration is None:
        # the calibration's reason starts "PENDING: ", which the report's status line already prints
        return pending(KEY, TITLE, (ranking.reason or "").removeprefix("PENDING: "), sizes=sizes)
    fit = ranking.calibration
    basis = f"{fit.n} control items, cross-validated, design-weighted"
    rows = [(f"P >= {r['threshold']:.1f}", r["n"], None if r["precision"] is None else 100 * r["precision"],
             None if r["recall"] is None else 100 * r["recall"], basis) for r in fit.precision_by_threshold()]
    tables = [Table.build(f"Precision by calibrated threshold (isotonic; AP {fit.average_precision():.3f}, n={fit.n})",
                          ("threshold", "control items", "precision (%)", "recall (%)", "rests on"), rows)]
    if ranking.ranked:
        tables.append(Table.build(f"Next suspects to review (top {TOP} of {len(ranking.ranked)}: review push --next N)",
                                  ("item", "calibrated P(label wrong) (%)"),
                                  [(i, 100 * p) for i, p in ranking.ranked[:TOP]]))
    note, gain = _stacking_note(data, control)
    cut = fitted_flag_cut(data.items, control, is_error=is_error, calibration=fit)
    members = member_cuts(data.items, data.sample, outcomes, is_error=is_error, family=data.spec.task_family.name)
    notes = (f"Fitted once at least {MIN_REVIEWED} control items are settled ({MIN_PER_OUTCOME} wrong and "
             f"{MIN_PER_OUTCOME} right); each weighs 1 / its inclusion probability.",
             cut.line(score=score_name(data.spec.task_family.name)), *(m.line for m in members), note)
    values = {"n": fit.n, "average_precision": fit.average_precision(), "by_threshold": fit.precision_by_threshold(),
              "next": [{"id": i, "p_wrong": p} for i, p in ranking.ranked], "stacking": gain,
              "fitted_cut": cut.to_json(), "member_cuts": [m.to_json() for m in members]}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=tuple(tables), notes=notes, values=values)


class CalibrationSection(ReportSection):
    key, title, order = KEY, TITLE, 32

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return calibration_section(data)
