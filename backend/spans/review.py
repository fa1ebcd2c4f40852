"""The blind review of spans: experts' own annotations -> answers to the questions, by offsets.

Design (why it leaks nothing): an expert gets the item's text alone, in a project of their own with
only the ``<Labels>`` of the project (:func:`backend.spans.config.review_span_config`), and marks every
entity themselves. No original span, proposal, question or score is imported, so none can be seen in
the labelling view nor in the Data Manager. Their spans answer every question of the item afterwards:

- ``type``/``missed`` question about extent E: the expert's type of a span with exactly E, else of a
  span overlapping E (the entity is there; its extent is the boundary question's business), else
  "not an entity";
- ``boundary`` question: the option whose extent the expert marked exactly; :data:`OTHER_EXTENT` when
  they marked that entity with a third extent, "not an entity" when with none.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from backend.spans.model import NOT_AN_ENTITY, Span
from backend.spans.questions import EXTENT_OPTIONS, SpanQuestion, marked

OTHER_EXTENT = "another extent"


def expert_answer(question: SpanQuestion, spans: Sequence[Span]) -> str:
    """What one expert's spans say to one question."""
    if question.kind != "boundary":
        exact = [s for s in spans if s.extent == question.span.extent]
        near = exact or sorted((s for s in spans if s.overlaps(question.span)),
                               key=lambda s: -min(s.end, question.span.end) + max(s.start, question.span.start))
        return near[0].label if near else NOT_AN_ENTITY
    for option, extent in zip(EXTENT_OPTIONS, question.extents):
        if any(s.extent == extent.extent for s in spans):
            return option
    return OTHER_EXTENT if any(s.overlaps(question.span) for s in spans) else NOT_AN_ENTITY


def expert_answers(questions: Sequence[SpanQuestion], spans: Sequence[Span]) -> dict[str, str]:
    """Every question of an item answered from one expert's spans: ``{question id: answer}``."""
    return {q.qid: expert_answer(q, spans) for q in questions}


def split_questions(questions: Sequence[SpanQuestion], answers: Sequence[Mapping[str, str]]) -> list[SpanQuestion]:
    """The questions the experts did not all answer alike (what reconciliation shows)."""
    return [q for q in questions if len({a.get(q.qid) for a in answers}) > 1]


def describe_answer(question: SpanQuestion, answer: str | None, text: str) -> str:
    """An expert's answer in words for the reconciliation view (never the original or the ensemble)."""
    if answer is None:
        return "no answer"
    if question.kind == "boundary" and answer in EXTENT_OPTIONS:
        extent = question.extents[EXTENT_OPTIONS.index(answer)]
        return f"{question.span.label} over «{extent.text}»"
    return answer


def reconcile_lines(questions: Sequence[SpanQuestion], answers: Sequence[Mapping[str, str]], text: str,
                    *, names: Sequence[str]) -> str:
    """One line per split question: where in the text, and each expert's answer, named "Expert A"..."""
    lines = []
    for q in split_questions(questions, answers):
        where = marked(text, q.span)
        said = " · ".join(f"{name}: {describe_answer(q, a.get(q.qid), text)}" for name, a in zip(names, answers))
        lines.append(f"{where}\n    {said}")
    return "\n".join(lines)
