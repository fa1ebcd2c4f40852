"""Score span items: propose, ask, judge with the unchanged engine, assemble.

Per item: (1) the judge models propose entities (:mod:`backend.spans.propose`); the spans some
annotators marked but no majority (:class:`backend.spans.original.OriginalSpans` ``minority``) are
proposals too — annotators disagreeing is itself a sign of a missed entity or a boundary; (2) the
item becomes questions (:mod:`backend.spans.questions`); (3) the engine judges the ``type``/``missed``
questions under one spec and the ``boundary`` ones under another, exactly as classification items
(cache, retries, quorum, early exit, flag rule); (4) the verdicts become the item's predicted spans.
A bad item (no text) is recorded with its error and the rest proceeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from backend.scoring.engine import Engine
from backend.scoring.results import ErrorInfo, ItemResult
from backend.spans.assemble import PredictedSpan, Verdict, item_score, predicted_spans
from backend.spans.config import SpanControl
from backend.spans.model import Span
from backend.spans.propose import Proposals, propose
from backend.spans.questions import SpanQuestion, build_questions, count_by_kind
from backend.spans.specs import boundary_spec, question_item, split_question_id, type_spec


@dataclass(frozen=True)
class SpanItem:
    """One task: its text, original spans (majority) and the minority spans annotators also marked."""

    id: str
    text: str
    original: tuple[Span, ...]
    minority: tuple[Span, ...] = ()


@dataclass
class SpanVerdict:
    """An item's questions, their engine results, the assembled prediction and the proposal record."""

    id: str
    questions: list[SpanQuestion]
    results: dict[str, ItemResult]
    predicted: list[PredictedSpan]
    proposals: Proposals = field(default_factory=Proposals)
    error: ErrorInfo | None = None

    @property
    def flagged(self) -> bool:
        return any(p.flagged for p in self.predicted)

    @property
    def score(self) -> float:
        return item_score(self.predicted)

    @property
    def counts(self) -> dict[str, int]:
        return count_by_kind(self.questions)


def _verdict(result: ItemResult) -> Verdict:
    return Verdict(result.prediction, result.confidence, bool(result.flagged))


def item_questions(item: SpanItem, proposals: Sequence[Span]) -> list[SpanQuestion]:
    """The questions of one item, from its original spans, the judges' and the minority's proposals."""
    return build_questions(item.original, [*proposals, *item.minority])


def audit_spans(items: Iterable[SpanItem], *, control: SpanControl, members: Sequence[Any], cache: Any = None,
                config: Any = None, guidelines: str = "", propose_step: bool = True,
                engines_out: list | None = None, spec_options: Mapping[str, Any] | None = None) -> Iterator[SpanVerdict]:
    """Judge ``items`` (see the module docstring); ``members`` are built for :func:`type_spec`.

    ``engines_out``, when given, receives the two question engines (their call counts). ``spec_options``: the
    option orders and calibration the questions are asked with (the span spec's,
    :func:`backend.task.generic.derived_options`; None: the defaults).
    """
    options = dict(spec_options or {})
    tspec = type_spec(control, guidelines=guidelines, **options)
    bspec = boundary_spec(guidelines=guidelines, **options)
    engines = {"type": Engine(tspec, members, cache=cache, config=config),
               "boundary": Engine(bspec, members, cache=cache, config=config)}
    if engines_out is not None:
        engines_out.extend(engines.values())
    providers = [m.provider for m in members]
    staged: list[SpanVerdict] = []
    texts: dict[str, str] = {}
    for item in items:
        if not item.text:
            yield SpanVerdict(item.id, [], {}, [], error=ErrorInfo("missing_field", False, "the task has no text"))
            continue
        found = propose(item.text, types=control.labels, providers=providers, cache=cache,
                        hints=control.hints, guidelines=guidelines) if propose_step else Proposals()
        staged.append(SpanVerdict(item.id, item_questions(item, found.spans), {}, [], found))
        texts[item.id] = item.text
    batches: dict[str, list] = {"type": [], "boundary": []}
    for verdict in staged:
        for q in verdict.questions:
            batches["boundary" if q.kind == "boundary" else "type"].append(question_item(verdict.id, q, texts[verdict.id]))
    by_id = {v.id: v for v in staged}
    for kind, qitems in batches.items():
        for result in engines[kind].score(qitems):
            item_id, qid = split_question_id(result.id)
            by_id[item_id].results[qid] = result
    for verdict in staged:
        answers = {qid: _verdict(r) for qid, r in verdict.results.items() if r.prediction is not None}
        verdict.predicted = predicted_spans(verdict.questions, answers)
        yield verdict
