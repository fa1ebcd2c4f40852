"""Span labels (NER: ``<Labels>`` over ``<Text>``): an item's answer is its set of typed spans.

The label value is the span list (:mod:`backend.spans.value`). An item is judged as questions that
depend on the item itself — one per original span, one per proposed missed entity, one per boundary
(:mod:`backend.spans.questions`) — so this family brings its own engine (:meth:`make_engine`,
:class:`backend.spans.engine.SpanEngine`), which runs the unchanged engine on every question.
Original from several annotations: per-span majority (:data:`backend.spans.original.RULE`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from backend.spans.model import NOT_AN_ENTITY, Span
from backend.task.family import Question, TaskFamily, register_family
from backend.spans.value import decode_spans, encode_spans
from backend.spans.original import original_spans
from backend.spans.specs import boundary_spec, type_spec
from backend.task.generic import derived_options
from backend.spans.engine import SpanEngine, predicted_from_value
from backend.spans.lsresult import read_spans_unchecked, span_region
from backend.spans.assemble import prediction_result
from backend.spans.config import review_span_config, span_control_of
from backend.spans.gold_spans import item_gold

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element
    from backend.scoring.results import ItemResult
    from backend.spans.config import SpanControl
    from backend.task.spec import TaskSpec

__all__ = ["SpanFamily"]


@register_family
class SpanFamily(TaskFamily):
    """Typed spans of one text; questions per span (see the module docstring)."""

    name = "spans"
    span_valued = True
    lacks = {"one_label": "members answer one question per span, not one distribution per item, and the truth "
                          "model takes one label out of the task's classes per item; the span view is in "
                          "'Spans, by error kind'"}

    def check_spec(self, spec: "TaskSpec") -> None:
        if spec.labels[-1] != NOT_AN_ENTITY:
            raise ValueError(f"a span task's labels are its entity types followed by {NOT_AN_ENTITY!r}")
        if "text" not in spec.fields:
            raise ValueError("a span task reads one text, template variable 'text'")

    def default_negative(self, spec: "TaskSpec") -> str:
        return NOT_AN_ENTITY

    def normalize_label(self, spec: "TaskSpec", value: Any) -> str | None:
        """A span list (JSON text, or a list of ``{start, end, label, text}``/rows) -> the canonical value."""
        try:
            if isinstance(value, str):
                spans = decode_spans(value)
            elif isinstance(value, list):
                spans = tuple(Span.from_dict(v) if isinstance(v, Mapping) else Span(int(v[0]), int(v[1]), str(v[2]),
                              str(v[3]) if len(v) > 3 else "") for v in value)
            else:
                return None
        except (ValueError, TypeError, KeyError, IndexError):
            return None
        if any(s.label not in spec.labels[:-1] for s in spans):
            return None
        return encode_spans(spans)

    def original_label(self, spec: "TaskSpec", labels: Iterable[str | None]) -> str | None:
        given = [decode_spans(v) for v in labels if v is not None]
        return encode_spans(original_spans(given).spans) if given else None

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        raise NotImplementedError("span values are encoded from spans (backend.spans.value.encode_spans)")

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        """Per original span (question id ``type:s-e:T``), its type."""
        return {f"type:{s.start}-{s.end}:{s.label}": s.label for s in decode_spans(value)}

    def questions(self, spec: "TaskSpec") -> tuple[Question, ...]:
        """The two question specs (type/missed, boundary); which questions an item gets depends on it."""
        guidelines = spec.prompt.guidelines if spec.prompt else ""
        options = derived_options(spec)  # the settings the span spec was derived with
        return (Question("type", type_spec(span_control_of(spec), guidelines=guidelines, name=spec.name, **options)),
                Question("boundary", boundary_spec(guidelines=guidelines, name=spec.name, **options)))

    def make_engine(self, spec: "TaskSpec", members: Sequence[Any], **options: Any) -> Any:
        return SpanEngine(spec, members, **options)

    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        """The predicted spans differ from the original; a span the prediction keeps only to mark it "not an
        entity" counts as removed."""
        if original is None:
            return False
        predicted = {(p.span.start, p.span.end, p.span.label) for p in predicted_from_value(prediction)
                     if p.kind != "not_an_entity"}
        return predicted != {(s.start, s.end, s.label) for s in decode_spans(original)}

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return ("per span: the ensemble confidently picks another type or 'not an entity', confirms a proposed "
                "missed entity, or another extent; the item when any span is")

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        """Both question specs' values (they enter the ensemble fingerprint, so the model version)."""
        type_q, boundary_q = self.questions(spec)
        params = type_q.spec.task_family.prompt_params(type_q.spec)
        for name, value in boundary_q.spec.task_family.prompt_params(boundary_q.spec).items():
            params[f"boundary:{name}"] = value
        return params

    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """The spans of one annotation (an annotation with no region marked no entity)."""
        control = span_control_of(spec)
        return encode_spans(read_spans_unchecked(result, control=control.name, labels=control.labels))

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        control = span_control_of(spec)
        return [span_region(s, control=control.name, to_name=control.to_name, region_id=f"span-{i}")
                for i, s in enumerate(decode_spans(value))]

    def marked_result(self, spec: "TaskSpec", result: "ItemResult", *, model_version: str) -> list[dict[str, Any]]:
        """Prediction regions with a score each, flagged ones marked for the suspects tab."""
        control = span_control_of(spec)
        return prediction_result(predicted_from_value(str(result.prediction)), control=control.name,
                                 to_name=control.to_name, model_version=model_version)

    def review_config(self, spec: "TaskSpec", label_config: "str | Element", *,
                      answer_fields: Sequence[str] = ()) -> str | None:
        """Blind review: the text and the entity types only; round 2 adds each expert's spans above them."""
        return review_span_config(label_config, control=span_control_of(spec).name, answer_fields=answer_fields)

    def disputed(self, spec: "TaskSpec", answers: Sequence[str], *, delta: int | None = None) -> tuple[str, ...]:
        """The extents (``start-end``) some expert marked differently from another."""
        sets = [set(decode_spans(a)) for a in answers]
        split = set().union(*sets) - set.intersection(*sets) if sets else set()
        return tuple(sorted({f"{s.start}-{s.end}" for s in split}, key=lambda k: tuple(map(int, k.split("-")))))

    def gold(self, spec: "TaskSpec", *, original: str, prediction: str, resolution: str,
             asked: Sequence["ItemResult"] = ()) -> str:
        """Per question: the original where the ensemble agrees, else the experts' spans (by offsets); the
        questions are the item's stored ones (``asked``), so no finding on a span is lost."""
        return encode_spans(item_gold(decode_spans(original), predicted_from_value(prediction),
                                      decode_spans(resolution), [(str(q.id), bool(q.flagged)) for q in asked]))

    def flipped(self, spec: "TaskSpec", result: Any, threshold: float) -> str | None:
        """The prediction with its confident corrections applied (a flagged "not an entity" span removed)."""
        if result.prediction is None:
            return None
        kept = [p.span for p in predicted_from_value(result.prediction)
                if not (p.kind == "not_an_entity" and p.confidence > threshold)]
        return encode_spans(kept)

    def export(self, spec: "TaskSpec", value: str) -> Any:
        """Spans as JSON objects with code-point offsets."""
        return [s.to_dict() for s in decode_spans(value)]

    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        spans = decode_spans(value)
        return "; ".join(f"«{s.text}» {s.label}" for s in spans) or "no entity"

    def report_parts(self, spec: "TaskSpec", value: str | None) -> dict[str, str] | None:
        return None if value is None else self.split(spec, value)
