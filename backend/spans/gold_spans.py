"""Gold per span: each question's gold answer, then the item's gold spans.

A question's gold is the original answer when the ensemble agrees with it (not flagged), else the
experts' answer when they all agree, else the reconciliation's answer, else pending (the original
meanwhile). The item's gold spans apply every question's gold answer, however many share a span:

- each original span keeps its ``type`` answer as its type, or is removed by "not an entity" (which wins
  over a boundary answer: there is no entity to give an extent to);
- it takes the extent a ``boundary`` answer chose when that is not its own; of several boundary questions
  on one span, the first in text order that moves it (one that keeps the span's own extent moves nothing);
- a ``missed`` answer naming a type adds that entity, unless its extent overlaps a span moved onto it: the
  experts' span that answered it is then that moved span (an expert span answers every question it
  overlaps, :mod:`backend.spans.review`), not a second entity.

So a span both moved and retyped comes back once, with the new extent and the new type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from backend.spans.asked import questions_from_ids, questions_from_prediction
from backend.spans.model import NOT_AN_ENTITY, Span, sorted_spans
from backend.spans.questions import EXTENT_OPTIONS, SpanQuestion
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


def _text_order(question: SpanQuestion) -> tuple[int, ...]:
    other = question.other.extent if question.other is not None else ()
    return (*question.span.extent, *other)


def _moves(questions: Sequence[SpanQuestion], answer: Mapping[str, str]) -> dict[tuple[int, int], Span]:
    """Per original extent, the extent its first moving boundary answer chose (text order of the proposals)."""
    moves: dict[tuple[int, int], Span] = {}
    for q in sorted((q for q in questions if q.kind == "boundary"), key=_text_order):
        said = answer[q.qid]
        chosen = q.extents[EXTENT_OPTIONS.index(said)] if said in EXTENT_OPTIONS else q.span
        if chosen.extent != q.span.extent:
            moves.setdefault(q.span.extent, chosen)
    return moves


def gold_spans(questions: Sequence[SpanQuestion], golds: Mapping[str, QuestionGold]) -> tuple[tuple[Span, ...], bool]:
    """``(spans, complete)``: the item's gold spans (module docstring); ``complete`` False while any answer is
    pending (pending questions keep the original meanwhile)."""
    complete = all(golds[q.qid].answer is not None for q in questions if q.qid in golds)
    answer = {q.qid: q.original if (g := golds.get(q.qid)) is None or g.answer is None else g.answer for q in questions}
    moves = _moves(questions, answer)
    out: list[Span] = []
    landed: list[Span] = []
    for q in questions:
        if q.kind != "type" or answer[q.qid] == NOT_AN_ENTITY:
            continue
        at = moves.get(q.span.extent, q.span)
        out.append(Span(at.start, at.end, answer[q.qid], at.text))
        if at.extent != q.span.extent:
            landed.append(at)
    for q in questions:
        if q.kind == "missed" and answer[q.qid] != NOT_AN_ENTITY and not any(q.span.overlaps(m) for m in landed):
            out.append(Span(q.span.start, q.span.end, answer[q.qid], q.span.text))
    return sorted_spans(out), complete


def asked_questions(original: Sequence[Span], predicted: Sequence["PredictedSpan"],
                    asked: Iterable[tuple[str, bool]] = (),
                    known: Sequence[Span] = ()) -> tuple[list[SpanQuestion], set[str]]:
    """The questions an audited item was asked that matter for gold and the flagged ids: from its stored
    question ids and flags when given, else from its prediction (:mod:`backend.spans.asked`)."""
    pairs = list(asked)
    if pairs:
        return questions_from_ids(original, pairs, [*known, *(p.span for p in predicted)])
    return questions_from_prediction(original, predicted)


def item_gold(original: Sequence[Span], predicted: Sequence["PredictedSpan"], resolution: Sequence[Span],
              asked: Iterable[tuple[str, bool]] = ()) -> tuple[Span, ...]:
    """Gold spans of a reviewed item: per question, the original where the ensemble agrees, else the
    experts' resolution (their spans answer the question by offsets); plus the entities the experts
    marked where no question looked (they reviewed the whole text), said in docs/spans.md. ``asked``: the
    item's stored (question id, flagged) pairs. What looked: the original spans and the flagged proposals, as
    when the questions were rebuilt from the prediction alone (an unflagged proposal leaves an entity the
    experts marked there to them)."""
    questions, flagged = asked_questions(original, predicted, asked, resolution)
    said = expert_answers(questions, resolution)
    golds = {q.qid: question_gold(q, flagged=q.qid in flagged, expert=[said]) for q in questions}
    spans, _ = gold_spans(questions, golds)
    looked = [q.span for q in questions if q.kind == "type" or q.qid in flagged]
    looked += [q.other for q in questions if q.other is not None and q.qid in flagged]
    extra = [s for s in resolution if not any(s.overlaps(x) for x in looked)]
    return sorted_spans([*spans, *extra])
