"""An item's spans -> single-choice questions the unchanged engine judges.

Three kinds, each with an "original" answer so the ordinary flag rule (confident prediction ≠
original) flags exactly the suspected errors:

- ``type``: one per original span — "in this text, is «span» a T?", options every entity type plus
  "not an entity"; original = the annotators' type. Flagged: wrong type, or not an entity.
- ``missed``: one per proposed extent that no original span touches — the same question, original =
  "not an entity". Flagged: a missed entity. The proposal's own type is not shown (no anchoring).
- ``boundary``: one per (original span, overlapping proposal of another extent) — options the two
  extents, in text order (so the annotator's is not always first); original = the annotator's.

A question id names its offsets, so expert answers are matched back to questions by offsets alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from backend.spans.model import NOT_AN_ENTITY, Span

KINDS = ("type", "missed", "boundary")
EXTENT_OPTIONS = ("extent 1", "extent 2")


@dataclass(frozen=True)
class SpanQuestion:
    """One question about one item.

    ``span`` is the span asked about (type, missed) or the annotator's (boundary); ``other`` the
    proposal's extent (boundary only); ``extents`` the two extents in option order (boundary only).
    """

    kind: str
    span: Span
    original: str
    other: Span | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"question kind must be one of {KINDS}, got {self.kind!r}")
        if (self.kind == "boundary") != (self.other is not None):
            raise ValueError("a boundary question, and only it, has the proposal's extent")

    @property
    def qid(self) -> str:
        """Stable id from offsets: ``type:7-11:PER``, ``missed:20-26``, ``boundary:7-11|7-15``."""
        if self.kind == "type":
            return f"type:{self.span.start}-{self.span.end}:{self.span.label}"
        if self.kind == "missed":
            return f"missed:{self.span.start}-{self.span.end}"
        assert self.other is not None
        return f"boundary:{self.span.start}-{self.span.end}|{self.other.start}-{self.other.end}"

    @property
    def extents(self) -> tuple[Span, Span]:
        """Boundary options in text order (start, then end)."""
        assert self.other is not None
        first, second = sorted((self.span, self.other), key=lambda s: (s.start, s.end))
        return first, second

    def options(self, types: Sequence[str]) -> tuple[str, ...]:
        return EXTENT_OPTIONS if self.kind == "boundary" else (*types, NOT_AN_ENTITY)


def marked(text: str, span: Span) -> str:
    """``text`` with ``span`` wrapped in «», so a repeated word is unambiguous."""
    return f"{text[:span.start]}«{text[span.start:span.end]}»{text[span.end:]}"


def question_fields(question: SpanQuestion, text: str) -> dict[str, str]:
    """The item texts of a question (fenced by the prompt like any item text)."""
    if question.kind != "boundary":
        return {"text": marked(text, question.span), "span": question.span.text}
    first, second = question.extents
    return {"entity_type": question.span.label, "extent_1": marked(text, first), "extent_2": marked(text, second)}


def extent_original(question: SpanQuestion) -> str:
    """Which option of a boundary question is the annotator's extent."""
    first, _ = question.extents
    return EXTENT_OPTIONS[0] if first.extent == question.span.extent else EXTENT_OPTIONS[1]


def build_questions(original: Sequence[Span], proposals: Sequence[Span]) -> list[SpanQuestion]:
    """Every question of one item: its original spans' types, then missed and boundary proposals."""
    questions = [SpanQuestion("type", s, s.label) for s in sorted(set(original))]
    seen: set[str] = {q.qid for q in questions}
    extents = {s.extent for s in original}
    for proposal in sorted(set(proposals)):
        if proposal.extent in extents:
            continue  # the type question already asks about this extent
        touching = [s for s in original if s.overlaps(proposal)]
        if not touching:
            new = [SpanQuestion("missed", proposal, NOT_AN_ENTITY)]
        else:
            new = []
            for human in touching:
                other = Span(proposal.start, proposal.end, human.label, proposal.text)
                q = SpanQuestion("boundary", human, "", other)
                new.append(SpanQuestion("boundary", human, extent_original(q), other))
        for q in new:
            if q.qid not in seen:
                seen.add(q.qid)
                questions.append(q)
    return questions


def count_by_kind(questions: Sequence[SpanQuestion]) -> dict[str, int]:
    """Questions per kind (the closing note's "questions per item")."""
    return {kind: sum(q.kind == kind for q in questions) for kind in KINDS}


def parse_qid(qid: str) -> SpanQuestion:
    """The question a question id names (span texts unknown: empty); ValueError for anything else."""
    kind, _, rest = qid.partition(":")

    def extent(text: str) -> tuple[int, int]:
        start, _, end = text.partition("-")
        return int(start), int(end)

    if kind == "type":
        where, _, label = rest.partition(":")
        return SpanQuestion("type", Span(*extent(where), label), label)
    if kind == "missed":
        return SpanQuestion("missed", Span(*extent(rest), NOT_AN_ENTITY), NOT_AN_ENTITY)
    if kind == "boundary":
        human, _, other = rest.partition("|")
        draft = SpanQuestion("boundary", Span(*extent(human), "?"), "", Span(*extent(other), "?"))
        return SpanQuestion("boundary", draft.span, extent_original(draft), draft.other)
    raise ValueError(f"not a span question id: {qid!r}")
