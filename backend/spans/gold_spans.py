"""Gold per span: each question's gold answer, then the item's gold spans.

A question's gold is the original answer when the ensemble agrees with it (not flagged), else the
experts' answer when they all agree, else the reconciliation's answer, else pending. The gold spans
of an item apply the gold answers to its original spans: a ``type`` answer retypes or (not an
entity) removes the span, a ``missed`` entity answer adds one, a ``boundary`` answer moves the extent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from backend.spans.model import NOT_AN_ENTITY, Span, sorted_spans
from backend.spans.questions import EXTENT_OPTIONS, SpanQuestion, extent_original
from backend.spans.review import expert_answers

if TYPE_CHECKING:
    from backend.spans.assemble import PredictedSpan

SOURCES = ("original", "experts", "reconciliation", "pending")


@dataclass(frozen=True)
class QuestionGold:
    """A question's gold answer (None while pending) and where it came from (:data:`SOURCES`)."""

    qid: str
    answer: str | None
    source: str


def question_gold(question: SpanQuestion, *, flagged: bool, expert: Sequence[Mapping[str, str]] = (),
                  reconciled: Mapping[str, str] | None = None) -> QuestionGold:
    """The gold answer of one question under the rule of the module docstring."""
    if not flagged:
        return QuestionGold(question.qid, question.original, "original")
    said = {a[question.qid] for a in expert if question.qid in a}
    if len(said) == 1:
        return QuestionGold(question.qid, said.pop(), "experts")
    if reconciled and question.qid in reconciled:
        return QuestionGold(question.qid, reconciled[question.qid], "reconciliation")
    return QuestionGold(question.qid, None, "pending")


def gold_spans(questions: Sequence[SpanQuestion], golds: Mapping[str, QuestionGold]) -> tuple[tuple[Span, ...], bool]:
    """``(spans, complete)``: the item's gold spans; ``complete`` False while any answer is pending
    (pending questions keep the original meanwhile)."""
    complete = all(golds[q.qid].answer is not None for q in questions if q.qid in golds)
    moves: dict[tuple[int, int], Span] = {}
    for q in questions:
        g = golds.get(q.qid)
        if q.kind == "boundary" and g is not None and g.answer in EXTENT_OPTIONS:
            moves[q.span.extent] = q.extents[EXTENT_OPTIONS.index(g.answer)]
    out: list[Span] = []
    for q in questions:
        g = golds.get(q.qid)
        answer = q.original if g is None or g.answer is None else g.answer
        if q.kind == "boundary" or answer == NOT_AN_ENTITY:
            continue
        extent = moves.get(q.span.extent, q.span) if q.kind == "type" else q.span
        out.append(Span(extent.start, extent.end, answer, extent.text))
    return sorted_spans(out), complete



def asked_questions(original: Sequence[Span], predicted: Sequence["PredictedSpan"]) -> tuple[list[SpanQuestion], set[str]]:
    """The questions an audited item was asked that matter for gold, rebuilt from its original spans and its
    prediction (whose flagged spans carry their error kind), and the ids of the flagged ones."""
    questions = [SpanQuestion("type", s, s.label) for s in sorted(set(original))]
    flagged: set[str] = set()
    for p in predicted:
        if not p.flagged:
            continue
        if p.kind in ("wrong_type", "not_an_entity"):
            flagged.update(q.qid for q in questions if q.kind == "type" and q.span.extent == p.span.extent)
        elif p.kind == "missed":
            q = SpanQuestion("missed", p.span, NOT_AN_ENTITY)
            questions.append(q)
            flagged.add(q.qid)
        elif p.kind == "boundary":
            for human in [s for s in original if s.overlaps(p.span) and s.extent != p.span.extent][:1]:
                other = Span(p.span.start, p.span.end, human.label, p.span.text)
                draft = SpanQuestion("boundary", human, "", other)
                q = SpanQuestion("boundary", human, extent_original(draft), other)
                questions.append(q)
                flagged.add(q.qid)
    return questions, flagged


def item_gold(original: Sequence[Span], predicted: Sequence["PredictedSpan"], resolution: Sequence[Span]) -> tuple[Span, ...]:
    """Gold spans of a reviewed item: per question, the original where the ensemble agrees, else the
    experts' resolution (their spans answer the question by offsets); plus the entities the experts
    marked where no question looked (they reviewed the whole text), said in docs/spans.md."""
    questions, flagged = asked_questions(original, predicted)
    said = expert_answers(questions, resolution)
    golds = {q.qid: question_gold(q, flagged=q.qid in flagged, expert=[said]) for q in questions}
    spans, _ = gold_spans(questions, golds)
    looked = [q.span for q in questions] + [q.other for q in questions if q.other is not None]
    extra = [s for s in resolution if not any(s.overlaps(x) for x in looked)]
    return sorted_spans([*spans, *extra])
