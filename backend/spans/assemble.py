"""Question verdicts -> one item's predicted spans and its Label Studio ``labels`` prediction.

What the prediction holds (proposals enter only once the ensemble judged them):

- an original span judged an entity type: a region with the predicted type, extent corrected when a
  boundary question confidently chose the proposal's extent (of several, the surest); one region per span,
  so its ``kind`` names one finding (a retype wins over the move it also carries): the item's gold reads
  every question from the stored verdicts (:mod:`backend.spans.gold_spans`), not from these kinds;
- an original span confidently judged "not an entity": kept as a region *marked suspect* (the lead
  must see which span is doubted), its ``meta`` saying "not an entity"; an unconfident "not an
  entity" drops nothing;
- a missed-question extent judged an entity type: a new region of that type.

Every region carries its own ``score`` (the verdict's confidence). A flagged region's id starts with
:func:`backend.labelstudio.scoreview.suspect_marker` (numbered: Label Studio needs distinct region
ids), so the suspects tab finds the item; the item's score is its highest flagged confidence (else
its lowest confidence), so the tab lists the surest suspects first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from backend.task.marks import suspect_marker
from backend.spans.lsresult import span_region
from backend.spans.model import NOT_AN_ENTITY, Span
from backend.spans.questions import EXTENT_OPTIONS, SpanQuestion


@dataclass(frozen=True)
class Verdict:
    """The ensemble's answer to one question (None prediction: not judged, e.g. every member failed)."""

    prediction: str | None
    confidence: float | None
    flagged: bool


@dataclass(frozen=True)
class PredictedSpan:
    """A span of the prediction, its confidence, whether it is suspect, and the error kind if so."""

    span: Span
    confidence: float
    flagged: bool
    kind: str = ""  # wrong_type | not_an_entity | boundary | missed ("" when not flagged)


def _error_kind(question: SpanQuestion, verdict: Verdict) -> str:
    if not verdict.flagged:
        return ""
    if question.kind == "missed":
        return "missed"
    if question.kind == "boundary":
        return "boundary"
    return "not_an_entity" if verdict.prediction == NOT_AN_ENTITY else "wrong_type"


def predicted_spans(questions: Sequence[SpanQuestion], verdicts: Mapping[str, Verdict]) -> list[PredictedSpan]:
    """The prediction of one item (see the module docstring), in text order."""
    moved: dict[tuple[int, int], tuple[Span, Verdict]] = {}
    for q in questions:
        v = verdicts.get(q.qid)
        if q.kind == "boundary" and v is not None and v.flagged and v.prediction in EXTENT_OPTIONS:
            chosen = q.extents[EXTENT_OPTIONS.index(v.prediction)]
            best = moved.get(q.span.extent)  # of several flagged boundaries on one span, the surest
            if best is None or (v.confidence or 0.0) > (best[1].confidence or 0.0):
                moved[q.span.extent] = (chosen, v)
    out: list[PredictedSpan] = []
    for q in questions:
        v = verdicts.get(q.qid)
        if q.kind == "boundary":
            continue
        if v is None or v.prediction is None or v.confidence is None:
            if q.kind == "type":  # not judged: the annotator's span stands, unscored
                out.append(PredictedSpan(q.span, 0.0, False))
            continue
        if v.prediction == NOT_AN_ENTITY:
            if q.kind == "type" and not v.flagged and q.span.extent in moved:  # no finding: the type stands, the
                chosen, bv = moved[q.span.extent]  # flagged boundary moves it
                out.append(PredictedSpan(Span(chosen.start, chosen.end, q.span.label, chosen.text),
                                         bv.confidence or 0.0, True, "boundary"))
            elif q.kind == "type":
                out.append(PredictedSpan(q.span, v.confidence, v.flagged, _error_kind(q, v)))
            continue
        span = Span(q.span.start, q.span.end, v.prediction, q.span.text)
        flagged, kind, confidence = v.flagged, _error_kind(q, v), v.confidence
        if q.kind == "type" and q.span.extent in moved:
            chosen, bv = moved[q.span.extent]
            span = Span(chosen.start, chosen.end, v.prediction, chosen.text)
            if not flagged:
                flagged, kind, confidence = True, "boundary", bv.confidence or 0.0
        out.append(PredictedSpan(span, confidence, flagged, kind))
    return sorted(out, key=lambda p: (p.span.start, p.span.end, p.span.label))


def item_score(spans: Sequence[PredictedSpan]) -> float:
    """Highest flagged confidence, else the lowest confidence (1.0 for an item with no span)."""
    flagged = [p.confidence for p in spans if p.flagged]
    if flagged:
        return max(flagged)
    return min((p.confidence for p in spans), default=1.0)


def prediction_result(spans: Sequence[PredictedSpan], *, control: str, to_name: str,
                      model_version: str) -> list[dict[str, Any]]:
    """Label Studio regions of a prediction: one per span, score per region, suspects marked."""
    regions = []
    for i, p in enumerate(spans):
        rid = f"{suspect_marker(model_version)}-{i}" if p.flagged else f"{model_version}-{i}"
        region = span_region(p.span, control=control, to_name=to_name, region_id=rid, score=p.confidence)
        if p.kind:
            region["meta"] = {"text": [p.kind.replace("_", " ")]}
        regions.append(region)
    return regions
