"""Planted label errors: where the errors a project knows it holds land in the ensemble's ranking.

A project built to try the tool (the demo's sample, a benchmark) marks the labels it changed on purpose
with a true ``planted`` field in each task's data. Those are then the only known errors, so the report can
say what a real audit cannot: how many the ensemble flagged, how many rank first in the suspects tab's
order, the average precision of that ranking (:func:`backend.scoring.planted_ranking.planted_ranking`),
and what the experts answered on each. NOT APPLICABLE when no item's data has the field.
"""

from __future__ import annotations

from backend.api import planted_ranking

from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "planted", "Planted label errors (known to the project)"


def _experts(data: AuditData, item_id: str) -> str:
    review = data.reviews.get(item_id)
    if review is None:
        return "sent to review, no answer yet" if item_id in data.routed else "not sent to review"
    answers = review.final_answers
    return ", ".join(f"{who}: {label if label is not None else 'no answer'}" for who, label in sorted(answers.items()))


def _name(record: dict) -> str:
    """The task id, with the item's own id when the data carries one (the sample's ``item``)."""
    own = (record.get("data") or {}).get("item")
    return f"{record['id']} ({own})" if own else str(record["id"])


def planted_section(data: AuditData) -> Section:
    records = [it.to_json() for it in data.items]
    if not any("planted" in (r.get("data") or {}) for r in records):
        return not_applicable(KEY, TITLE, "no item's data marks a planted error (field 'planted')")
    figures = planted_ranking(records)
    order = sorted(records, key=lambda r: -(1.0 - float((r.get("probs") or {}).get(str(r.get("original")), 1.0))))
    rank = {str(r["id"]): k + 1 for k, r in enumerate(order)}
    planted = [r for r in records if (r.get("data") or {}).get("planted")]
    rows = [(_name(r), r.get("original"), r.get("prediction"),
             None if not r.get("probs") else round(1.0 - float(r["probs"].get(str(r.get("original")), 0.0)), 3),
             rank[str(r["id"])], "yes" if r.get("flagged") else "no", _experts(data, str(r["id"])))
            for r in sorted(planted, key=lambda r: rank[str(r["id"])])]
    table = Table.build(
        f"The {figures['planted']} planted errors, in the ensemble's order (rank 1: the most suspect of "
        f"{figures['items']} items)",
        ("item", "label given (planted)", "ensemble's answer", "p against the label", "rank", "flagged",
         "experts' answers"), rows)
    ap = figures["average_precision"]
    summary = Table.build("What the ensemble found", ("figure", "value"), [
        ("planted errors", figures["planted"]),
        ("flagged by the ensemble (all items)", figures["flagged"]),
        ("planted errors flagged", f"{figures['found']} of {figures['planted']}"),
        (f"planted errors among the first {figures['planted']} ranked", f"{figures['ranked_first']} of {figures['planted']}"),
        ("average precision of the planted errors", "PENDING (nothing scored)" if ap is None else round(ap, 3)),
    ])
    notes = ("Ranking: every item by the ensemble's probability against its label, the suspects tab's order "
             "continued past the flagged items. Average precision 1.00: every planted error ranks before every "
             "clean item; the share of planted errors (here "
             f"{figures['planted']} of {figures['items']}) is what a random order scores. The planted errors are the "
             "project's only known wrong labels: a clean item that is flagged may still be a real error.",)
    return Section(KEY, TITLE, Status.OK, sizes={"items": figures["items"], "scored": figures["scored"],
                                                 "planted": figures["planted"]},
                   tables=(summary, table), notes=notes, values=figures)


class PlantedSection(ReportSection):
    key, title, order = KEY, TITLE, 30  # right after the label errors (same order, key sorts after "errors")

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return planted_section(data)
