"""Confident learning: cleanlab's own label-issue ranking over the confident-learning member's answers.

The member's stored answers are its out-of-fold probabilities, so ``find_label_issues`` can be run on them
after the fact: the report shows how many items cleanlab calls label issues, how many of them the
ensemble also flagged, and its top items. NOT APPLICABLE when the audit has no ``cleanlab:`` member.
"""

from __future__ import annotations

from backend.api import ranking_report
from backend.api import confident_ids

from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "confident_learning", "Confident learning (cleanlab)"
TOP = 10


def confident_section(data: AuditData) -> Section:
    members = confident_ids(sorted({m.member_id for it in data.items for m in it.members}))
    if not members:
        return not_applicable(KEY, TITLE, "no confident-learning member (cleanlab:tfidf-logreg) in this audit")
    flagged = {str(it.id) for it in data.items if it.flagged}
    tables, values = [], {}
    for member in members:
        rows = [(str(it.id), it.original, m.probs) for it in data.items if it.original is not None
                for m in it.members if m.member_id == member and m.probs]
        if not rows:
            continue
        ids, originals, probs = zip(*rows)
        block = ranking_report(ids, originals, probs, data.spec.labels, flagged=flagged, member=member, top=TOP)
        values[member] = block
        tables.append(Table.build(
            f"{member}: {block['issues']} label issues among {block['items']} items "
            f"({block['also_flagged_by_ensemble']} also flagged by the ensemble)",
            ("item", "original", "self-confidence"),
            [(r["id"], r["original"], r["self_confidence"]) for r in block["top"]]))
    sizes = {"items with the member's answer": max((v["items"] for v in values.values()), default=0)}
    notes = ("cleanlab.filter.find_label_issues (prune by noise rate) over the member's out-of-fold probabilities; "
             "ranked by self-confidence (the probability of the item's own label). Counts, no statistics.",)
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=tuple(tables), notes=notes, values=values)


class ConfidentSection(ReportSection):
    key, title, order = KEY, TITLE, 52

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return confident_section(data)
