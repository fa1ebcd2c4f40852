"""Agreement on ordered grades: weighted κ and Krippendorff α (ordinal, interval) beside the nominal figures.

A rating control (1–5, a number scale) is judged by distance, not exact match: 4 against 5 is natural
variation, 1 against 5 a real disagreement. This section gives, for the experts before and after
reconciliation, the ensemble against the original label, and the original annotators when there are
several, the exact-match figures (% agreement, Cohen κ, nominal α) beside the distance-aware ones (linear
and quadratic weighted κ, ordinal and interval α) — all from :mod:`stats_cli.stats.ordinal_agreement`.
"""

from __future__ import annotations

from typing import Any, Mapping

from stats_cli.stats.ordinal_agreement import ORDINAL_COEFFICIENTS, ordinal_agreement

from ..agreement import expert_groups, ratings_table
from ..fmt import percent, plural
from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "ordinal", "Ordinal agreement: weighted κ and α"
COLUMNS = ("raters", "items", "n raters", "% agreement", "Cohen κ", "weighted κ linear",
           "weighted κ quadratic", "α nominal", "α ordinal", "α interval")


def _row(name: str, answers: Mapping[str, Mapping[str, str]], grades: tuple[str, ...]) -> tuple[tuple, dict[str, Any]]:
    summary = ordinal_agreement(ratings_table(answers), grades=grades)
    cells = [summary.value(c) for c in ORDINAL_COEFFICIENTS]
    cells[0] = percent(cells[0])
    return (name, summary.n_items, summary.n_raters, *cells), summary.to_json()


def ordinal_section(data: AuditData) -> Section:
    """The agreement table over the control's grades (``data.spec.labels``, declared so unused grades count)."""
    if not data.spec.task_family.ordered:
        return not_applicable(KEY, TITLE, "the labels are not ordered grades: weighted κ and ordinal α need a scale")
    grades = tuple(data.spec.labels)
    groups, notes = expert_groups(data)
    n_experts = len(groups.get("experts, before reconciliation", {}))
    scored = {str(it.id): {"original": str(it.original), "ensemble": str(it.prediction)} for it in data.scored}
    if scored:
        groups["LLM ensemble vs original label"] = scored
    crowd = {i: dict(a) for i, a in data.crowd.items() if len(a) >= 2}
    if crowd:
        groups["original annotators"] = crowd
    if not groups:
        return pending(KEY, TITLE, "no item has two grades to compare yet (no verdict, no expert answers)")
    rows, values = [], {}
    for name, answers in groups.items():
        cells, summary = _row(name, answers, grades)
        rows.append(cells)
        values[name] = summary
    notes.append("Exact match (% agreement, Cohen κ, α nominal) counts 4 against 5 as fully as 1 against 5; the "
                 "weighted κ charge a disagreement by its distance (linear |i−j|, quadratic (i−j)²) and α ordinal "
                 "and interval do the same over every rater. With more than two raters weighted κ is the mean over "
                 "rater pairs.")
    if 0 < n_experts < 10:
        notes.append(f"the expert figures rest on {plural(n_experts, 'item')} only: read them as a rough sign.")
    table = Table.build(f"Agreement over the grades {', '.join(grades)}", COLUMNS, rows)
    sizes = {"items with ≥2 expert answers": n_experts, "scored items": len(scored),
             "items with ≥2 original annotations": len(crowd)}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table,), notes=tuple(notes), values=values)


class OrdinalSection(ReportSection):
    key, title, order = KEY, TITLE, 33
    needs = ("ordered",)
    lacking = "the labels are not ordered grades: weighted κ and ordinal α need a scale"

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return ordinal_section(data)
