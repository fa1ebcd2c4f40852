"""An audited item's asked questions and which were flagged, rebuilt after the run (for its gold).

The item's stored question verdicts (``ItemResult.questions``: question ids and flags) are the record: ids
name their offsets (:func:`backend.spans.questions.parse_qid`), so every question comes back, however many
findings share one span. A result stored without them (an older ledger) falls back on its prediction, which
keeps one error kind per span: a span both retyped and moved comes back as both (a type finding at another
extent implies a flagged boundary), but a span flagged "not an entity" loses a flagged boundary beside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from backend.spans.model import NOT_AN_ENTITY, Span
from backend.spans.questions import SpanQuestion, extent_original, parse_qid

if TYPE_CHECKING:
    from backend.spans.assemble import PredictedSpan


def _boundary(human: Span, other: Span) -> SpanQuestion:
    other = Span(other.start, other.end, human.label, other.text)
    return SpanQuestion("boundary", human, extent_original(SpanQuestion("boundary", human, "", other)), other)


def _type_questions(original: Sequence[Span]) -> list[SpanQuestion]:
    return [SpanQuestion("type", s, s.label) for s in sorted(set(original))]


def questions_from_ids(original: Sequence[Span], asked: Iterable[tuple[str, bool]],
                       known: Sequence[Span] = ()) -> tuple[list[SpanQuestion], set[str]]:
    """The questions and flagged ids from ``asked`` (question id, flagged); span texts are taken from
    ``known`` spans of the same extent (ids carry offsets only), else left empty."""
    texts = {s.extent: s.text for s in [*known, *original] if s.text}
    humans = {s.extent: s for s in sorted(set(original))}
    questions = _type_questions(original)
    seen = {q.qid for q in questions}
    flagged: set[str] = set()
    for qid, flag in asked:
        try:
            parsed = parse_qid(qid)
        except ValueError:
            continue
        q: SpanQuestion | None = None
        if parsed.kind == "missed":
            at = parsed.span
            q = SpanQuestion("missed", Span(at.start, at.end, NOT_AN_ENTITY, texts.get(at.extent, "")), NOT_AN_ENTITY)
        elif parsed.kind == "boundary" and parsed.span.extent in humans and parsed.other is not None:
            at = parsed.other
            q = _boundary(humans[parsed.span.extent], Span(at.start, at.end, "?", texts.get(at.extent, "")))
        elif parsed.kind == "type" and qid in seen:
            q = parsed
        if q is None or q.qid != qid:
            continue  # a question about a span the original no longer has
        if qid not in seen:
            seen.add(qid)
            questions.append(q)
        if flag:
            flagged.add(qid)
    return questions, flagged


def questions_from_prediction(original: Sequence[Span],
                              predicted: Sequence["PredictedSpan"]) -> tuple[list[SpanQuestion], set[str]]:
    """The questions that matter for gold and the flagged ids, from the prediction's flagged spans and
    their error kinds (see the module docstring for what this loses)."""
    questions = _type_questions(original)
    flagged: set[str] = set()

    def moved_from(p: "PredictedSpan") -> Span | None:  # the annotator's span a prediction span was moved from
        near = [s for s in original if s.overlaps(p.span) and s.extent != p.span.extent]
        return min(near, key=lambda s: (s.label != p.span.label, s.start, s.end), default=None)

    for p in predicted:
        if not p.flagged:
            continue
        human = None
        if p.kind in ("wrong_type", "not_an_entity"):
            at = [q for q in questions if q.kind == "type" and q.span.extent == p.span.extent]
            if not at and (human := moved_from(p)) is not None:
                at = [q for q in questions if q.kind == "type" and q.span == human]
            flagged.update(q.qid for q in at)
        elif p.kind == "missed":
            q = SpanQuestion("missed", p.span, NOT_AN_ENTITY)
            questions.append(q)
            flagged.add(q.qid)
        elif p.kind == "boundary":
            human = moved_from(p)
        if human is not None:
            q = _boundary(human, p.span)
            questions.append(q)
            flagged.add(q.qid)
    return questions, flagged
