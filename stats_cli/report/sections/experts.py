"""Expert agreement before and after reconciliation (Nahum Table 3), with the kappa-paradox note."""

from __future__ import annotations

from backend.api import AMBIGUOUS_ANSWER
from ..agreement import AGREEMENT_COLUMNS, expert_rounds, paradox_note, rater_agreement
from ..inputs import AuditData
from ..model import Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection
from dataclasses import replace

KEY, TITLE = "experts", "Expert agreement"
MIN_KAPPA_ITEMS = 10  # κ on fewer items is noise (one item gives −1 or 1); the row says so instead


IGNORED_COLUMNS = ("round", "annotator", "item", "review project", "instance", "project of")


def ignored_table(data: AuditData) -> Table | None:
    """The annotations found in review projects that did not count (not by the project's own expert)."""
    if not data.ignored_answers:
        return None
    rows = [(i.round, i.annotator, i.task_id, i.ls_project_id, i.instance or "shared review instance",
             i.expert or "reconciliation") for i in data.ignored_answers]
    return Table.build(f"Annotations not counted ({len(rows)}): not by the project's own expert",
                       IGNORED_COLUMNS, rows)


def _with_ignored(section: Section, data: AuditData) -> Section:
    """``section`` with the not-counted annotations listed (and counted in its sizes)."""
    table = ignored_table(data)
    if table is None:
        return section
    return replace(section, tables=(*section.tables, table),
                   sizes={**section.sizes, "annotations not counted": len(data.ignored_answers)})


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def experts_section(data: AuditData) -> Section:
    """Expert agreement, and every review annotation that was not counted (who, which item, which project)."""
    return _with_ignored(_agreement_section(data), data)


def _agreement_section(data: AuditData) -> Section:
    """Round-1 answers give "before"; each expert's last word gives "after" once reconciliation is done.

    "After" is only reported when every item the experts split on has been reconciled: a partial
    round 2 would mix settled and open items and overstate agreement.
    """
    rounds = expert_rounds(data)
    before, split, reconciled = rounds.before, rounds.split, rounds.reconciled
    if not before:
        return pending(KEY, TITLE, "no item has answers from two experts yet",
                       sizes={"routed": len(data.routed), "items with one answer": sum(1 for r in data.reviews.values() if r.round1)})
    row_before = rater_agreement("before reconciliation", before, spec=data.spec)
    rows = [row_before.cells()]
    values = {"before": row_before.values(), "disagreed": len(split), "reconciled": len(reconciled)}
    notes = []
    if rounds.after is None:
        notes.append(f"after reconciliation: pending — {len(reconciled)} of {len(split)} items the experts "
                     "split on are reconciled so far.")
        values["after"] = None
    else:
        row_after = rater_agreement("after reconciliation", rounds.after, spec=data.spec)
        rows.append(row_after.cells())
        values["after"] = row_after.values()
    # Nahum's disagreement subset: items where the LLM ensemble disagrees with the original label. (κ on the
    # items the experts split on selects by the outcome: with two experts and two labels it is −1 by construction.)
    by_id = {str(it.id): it for it in data.items}
    subset = {i: a for i, a in before.items() if i in by_id and data.disagrees(by_id[i])}
    if len(subset) >= MIN_KAPPA_ITEMS:
        rows.append(rater_agreement("before, where the LLM disagrees with the original", subset,
                                    spec=data.spec).cells())
    elif subset:
        notes.append(f"Agreement where the LLM disagrees with the original (Nahum's subset): not shown — "
                     f"{_items(len(subset))} have two expert answers, fewer than the {MIN_KAPPA_ITEMS} a κ needs.")
    if len(before) < MIN_KAPPA_ITEMS:
        notes.append(f"κ rests on {_items(len(before))} only, fewer than {MIN_KAPPA_ITEMS}: read it as a rough sign.")
    answers = [a for group in (before, rounds.after or {}) for by in group.values() for a in by.values()]
    if AMBIGUOUS_ANSWER in answers:
        notes.append("\"More than one answer may be right\" (review push --ambiguous-choice) counts as one more "
                     "category here: two experts who both pick it agree; one picking it and one a label disagree.")
    if note := paradox_note(row_before):
        notes.append(note)
    sizes = {"items with ≥2 expert answers": len(before), "experts": row_before.n_raters,
             "split in round 1": len(split), "reconciled": len(reconciled)}
    table = Table.build("Inter-expert agreement (Nahum Table 3)", AGREEMENT_COLUMNS, rows)
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table,), notes=tuple(notes), values=values)


class ExpertsSection(ReportSection):
    key, title, order = KEY, TITLE, 20

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return experts_section(data)
