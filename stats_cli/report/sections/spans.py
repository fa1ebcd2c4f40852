"""Spans (NER tasks): questions asked, flags and confirmed errors by kind and entity type, span agreement.

A span item is wrong in kinds — a wrong type, a span that is not an entity, a wrong boundary, a missed
entity — so this section counts per kind what the item-level sections cannot (:mod:`stats_cli.stats.span_stats`):
the questions each item was asked, the flags per kind and type, agreement between annotators and between
experts (exact-match and overlap F1, with the spans and pairs they rest on), and per kind the errors the
experts confirmed among the flagged questions (Clopper-Pearson), with the design estimate of the rate
over all questions of that kind only when the unflagged ones were sampled too (else PENDING).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from backend.api import NOT_AN_ENTITY
from backend.api import EXTENT_OPTIONS, KINDS, parse_qid
from backend.api import expert_answer
from backend.api import decode_spans
from stats_cli.stats.span_stats import ERROR_KINDS, QuestionOutcome, errors_by_kind, errors_by_type, span_agreement

from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "spans", "Spans, by error kind"


def _error_kind(question, gold) -> str:
    """What the gold spans say about one question: an error kind of :data:`ERROR_KINDS` or ""."""
    return _kind_of(question, expert_answer(question, gold))


def _kind_of(question, answer: str) -> str:
    """The error kind one answer to ``question`` makes of its original ("" for none)."""
    if question.kind == "type":
        return "" if answer == question.original else ("not_an_entity" if answer == NOT_AN_ENTITY else "wrong_type")
    if question.kind == "missed":
        return "" if answer == NOT_AN_ENTITY else "missed"
    return "" if answer == question.original or answer not in EXTENT_OPTIONS else "boundary"


def _outcomes(data: AuditData) -> tuple[list[QuestionOutcome], Counter[str], int]:
    gold = {it.id: g for it, g in data.reviewed()}
    outcomes: list[QuestionOutcome] = []
    asked: Counter[str] = Counter()
    items = 0
    for it in data.scored:
        if not it.questions:
            continue
        items += 1
        settled = decode_spans(gold[it.id]) if it.id in gold else None
        review = data.reviews.get(str(it.id))
        finals = [decode_spans(v) for v in (review.final_answers.values() if review else ()) if v]
        for part in it.questions:
            q = parse_qid(str(part.id))
            asked[q.kind] += 1
            seen = settled is not None and bool(part.flagged)
            outcomes.append(QuestionOutcome(q.kind, q.span.label if q.kind != "missed" else "", bool(part.flagged),
                                            seen, _flag_finding(q, settled, finals) if seen else None))
    return outcomes, asked, items


def _flag_finding(question, settled, finals) -> str:
    """A reviewed flag's error kind: what the experts' own spans answer to it when they all answer alike (the
    question's gold, :func:`backend.spans.gold_spans.question_gold`), else what the item's gold spans say (they
    apply every question's gold, several findings on one span included)."""
    said = {expert_answer(question, spans) for spans in finals}
    return _kind_of(question, said.pop()) if len(said) == 1 else _error_kind(question, settled)


def _agreement(data: AuditData) -> tuple[Table, dict[str, Any]]:
    crowd = [[decode_spans(v) for v in by.values() if v] for by in data.crowd.values()]
    experts = [[decode_spans(v) for v in r.round1.values() if v is not None] for r in data.reviews.values()]
    rows, values = [], {}
    for who, tasks in (("annotators", crowd), ("experts, round 1", experts)):
        a = span_agreement(tasks)
        values[who] = a.__dict__
        rows.append((who, a.pairs, a.spans, a.exact_f1, a.overlap_f1))
    return Table.build("Span agreement (pooled over pairs; n = spans compared)",
                       ("between", "pairs", "spans", "exact-match F1", "overlap F1"), rows), values


def spans_section(data: AuditData) -> Section:
    """The span view of a span audit (NOT APPLICABLE for other families)."""
    if not data.spec.task_family.span_valued:
        return SpansSection.not_applicable("not a span task")
    outcomes, asked, items = _outcomes(data)
    per_item = [(k, asked[k], None if not items else asked[k] / items) for k in KINDS]
    tables = [Table.build(f"Questions asked (n = {items} scored items)", ("kind", "questions", "per item"), per_item)]
    kinds = errors_by_kind(outcomes)
    tables.append(Table.build(
        "Errors by kind: confirmed among the reviewed flags (95% Clopper-Pearson, in %)",
        ("kind", "questions", "flagged", "reviewed flags", "confirmed", "CP low (%)", "CP high (%)",
         "rate over all"),
        [(k, e.questions, e.flagged, e.reviewed_flagged, e.confirmed,
          percent(e.precision_low), percent(e.precision_high),
          "PENDING" if e.rate is None else f"{100 * e.rate.rate:.1f}% [{100 * e.rate.low:.1f}, {100 * e.rate.high:.1f}]")
         for k, e in kinds.items()]))
    by_type = errors_by_type(outcomes)
    tables.append(Table.build("Confirmed errors per entity type (reviewed flagged questions)",
                              ("type", "reviewed", *ERROR_KINDS),
                              [(t, row.get("reviewed", 0), *(row.get(k, 0) for k in ERROR_KINDS))
                               for t, row in by_type.items()]))
    agreement, values = _agreement(data)
    tables.append(agreement)
    notes = ("'missed' counts only entities some judge or annotator proposed; an entity nobody proposed is never "
             "asked about.", "The rate over all questions of a kind is PENDING unless unflagged questions were "
             "sampled for review too (audit-stats sample).")
    return Section(KEY, TITLE, Status.OK, sizes={"scored items": items, "questions": sum(asked.values())},
                   tables=tuple(tables), notes=notes,
                   values={"asked": dict(asked), "errors": {k: {**e.__dict__, "rate": None if e.rate is None
                                                                 else e.rate.to_json()} for k, e in kinds.items()},
                           "per_type": by_type, "agreement": values})


class SpansSection(ReportSection):
    key, title, order = KEY, TITLE, 37
    needs = ("span",)
    lacking = "not a span task"

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return spans_section(data)
