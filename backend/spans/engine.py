"""The span family's engine: the engine API (``score``, ``stats``, ``threshold``) over per-item questions.

Items go through in chunks (:data:`CHUNK`) so results stream and an interrupted run resumes from the
call cache. Each item's result keeps every question's verdict (``ItemResult.questions``, ids are the
question ids) and the members' answers qualified by question (``member#question``), as multi-label does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Iterator, Sequence

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.task.dataset import Item, ItemError
from backend.scoring.engine import Engine
from backend.scoring.engine_config import EngineConfig
from backend.scoring.results import ErrorInfo, ItemResult
from backend.scoring.run_stats import EngineStats
from backend.spans.assemble import PredictedSpan
from backend.spans.score_spans import SpanItem, SpanVerdict, audit_spans
from backend.spans.model import Span
from backend.spans.value import checked_spans, decode_rows, encode_spans
from backend.scoring.question_engine import ChunkedScoring
from backend.spans.config import span_control_of
from backend.task.generic import derived_options

CHUNK = 8
#: The ledger and review stores keep a label value in a column this wide (PostgreSQL enforces it).
MAX_VALUE_CHARS = STORE_COLUMN_CHARS
_CALL_COUNTS = ("llm_calls", "attempts", "items_with_calls", "early_exit_skipped", "call_seconds")


def predicted_value(verdict: SpanVerdict) -> str:
    """The prediction's label value: spans plus each one's confidence and error kind."""
    return encode_spans([p.span for p in verdict.predicted],
                        extras=[{"c": round(p.confidence, 3), "k": p.kind} for p in verdict.predicted])


def predicted_from_value(value: str) -> list[PredictedSpan]:
    """Inverse of :func:`predicted_value` (what the prediction import reads back from the ledger)."""
    out = []
    for row in decode_rows(value):
        extra = row[4] if len(row) > 4 and isinstance(row[4], dict) else {}
        span = Span(int(row[0]), int(row[1]), str(row[2]), str(row[3]) if len(row) > 3 else "")
        out.append(PredictedSpan(span, float(extra.get("c", 0.0)), bool(extra.get("k")), str(extra.get("k") or "")))
    return out


def too_long(original: str | None, prediction: str | None) -> str | None:
    """Why a span list cannot be stored (longer than the ledger's label column), or None."""
    over = [what for what, value in (("original", original), ("prediction", prediction))
            if value is not None and len(value) > MAX_VALUE_CHARS]
    if not over:
        return None
    return (f"the {' and '.join(over)} span list takes more than the {MAX_VALUE_CHARS} characters the audit ledger "
            "stores per label value: split the text into shorter tasks")


class SpanEngine(ChunkedScoring):
    """Judge span items (see the module docstring); ``members`` are built for the family's spec."""

    chunk_size = CHUNK

    def __init__(self, spec: Any, members: Sequence[Any], *, cache: Any, config: EngineConfig | None = None,
                 budget: Any = None, secrets: Iterable[str] = ()):
        self.spec, self.members, self.cache = spec, tuple(members), cache
        self.config = config or EngineConfig()
        self.control = span_control_of(spec)
        self.guidelines = spec.prompt.guidelines if spec.prompt else ""
        self.threshold = Engine(spec.task_family.questions(spec)[0].spec, members, cache=None,
                                config=self.config).threshold
        self.stats = EngineStats()
        self._budget, self._secrets = budget, tuple(secrets)

    def _chunk(self, entries: list[Item | ItemError]) -> Iterator[ItemResult]:
        judged = [e for e in entries if isinstance(e, Item)]
        problems: dict[str, list[str]] = {}
        span_items = []
        for it in judged:
            text = it.fields.get("text", "")
            original, bad = checked_spans(it.original, text) if it.original else ((), [])
            problems[it.id] = bad
            span_items.append(SpanItem(it.id, text, original))
        engines: list[Engine] = []
        verdicts = {v.id: v for v in audit_spans(span_items, control=self.control, members=self.members,
                                                 cache=self.cache, config=self.config, guidelines=self.guidelines,
                                                 engines_out=engines, spec_options=derived_options(self.spec))}
        for engine in engines:
            for name in _CALL_COUNTS:
                setattr(self.stats, name, getattr(self.stats, name) + getattr(engine.stats, name))
        for entry in entries:
            if isinstance(entry, ItemError):
                result = ItemResult(id=str(entry.id or f"line:{entry.line}"), original=None, prediction=None,
                                    confidence=None, probs=None, flagged=False, line=entry.line,
                                    error=ErrorInfo(entry.reason, False, entry.detail))
            else:
                result = self._result(entry, verdicts[entry.id], problems[entry.id])
            self.stats.add_result(result)
            yield result

    def _result(self, item: Item, verdict: SpanVerdict, problems: list[str]) -> ItemResult:
        parts = tuple(replace(r, id=qid, data={}, members=()) for qid, r in verdict.results.items())
        members = tuple(replace(m, member_id=f"{m.member_id}#{qid}") for qid, r in verdict.results.items()
                        for m in r.members)
        data = {**dict(item.data), "span_questions": verdict.counts, "span_proposals": verdict.proposals.by_model,
                "span_problems": [*problems, *verdict.proposals.problems]}
        common = dict(id=item.id, original=item.original, members=members, line=item.line, data=data,
                      questions=parts)
        detail = too_long(item.original, predicted_value(verdict))
        if detail:
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False,
                              error=ErrorInfo("too_many_spans", False, detail), **common)
        failed = [r for r in verdict.results.values() if r.prediction is None]
        if verdict.error is not None or (failed and len(failed) == len(verdict.results)):
            error = verdict.error or failed[0].error or ErrorInfo("no_member_answered")
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False, error=error, **common)
        return ItemResult(prediction=predicted_value(verdict), confidence=verdict.score,
                          probs={qid: float(r.confidence or 0.0) for qid, r in verdict.results.items()},
                          flagged=verdict.flagged, insufficient=any(r.insufficient for r in verdict.results.values()),
                          **common)
