"""A span project's label config: the ``<Labels>`` control, the ``<Text>`` it marks, its entity types.

The same reasoning as :mod:`backend.labelstudio.labelconfig`: the config the lead already wrote is the
one description of the task, parsed by the one defusedxml parser (:mod:`backend.controls.parse`). The blind
review config keeps only the text and the entity types (no header, instruction, hint or pre-selection can
reach the expert).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Sequence

from backend.controls.parse import config_root
from backend.spans.model import NOT_AN_ENTITY
from backend.task.calibration_setting import EXTRA_KEY as CALIBRATION_KEY, resolve_calibration
from backend.task.generic import GENERIC_PROMPT_DIR, guidelines_text
from backend.task.option_orders import EXTRA_KEY as ORDERS_KEY, resolve_orders
from backend.task.spec import ChoiceBinding, PromptText, TaskSpec


@dataclass(frozen=True)
class SpanControl:
    """The ``<Labels>`` control to audit.

    ``labels`` are what Label Studio stores (alias when set, else value), ``shown`` what annotators see,
    ``hints`` each label's ``hint`` attribute ("" when none); ``field`` is the data field of the text.
    """

    name: str
    to_name: str
    field: str
    labels: tuple[str, ...]
    shown: tuple[str, ...]
    hints: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.labels:
            raise ValueError(f"<Labels name={self.name!r}> has no <Label>")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"<Labels name={self.name!r}> repeats a label: {self.labels}")
        if NOT_AN_ENTITY in self.labels:
            raise ValueError(f"an entity type may not be called {NOT_AN_ENTITY!r}: it is the judges' 'no' option")


def has_span_labels(config: str | ET.Element) -> bool:
    """Whether the config (its XML or parsed tree) marks text spans with ``<Labels>`` (the NER template)."""
    try:
        return any(e.get("name") for e in config_root(config).iter("Labels"))
    except ValueError:
        return False


def span_control(config: str | ET.Element, *, control: str | None = None) -> SpanControl:
    """The single ``<Labels>`` over a ``<Text value="$field">``; ValueError saying what is missing."""
    root = config_root(config)
    controls = [c for c in root.iter("Labels") if c.get("name")]
    if control is not None:
        controls = [c for c in controls if c.get("name") == control]
    if len(controls) != 1:
        names = ", ".join(c.get("name", "") for c in controls) or "none"
        raise ValueError(f"a span audit needs exactly one <Labels> control (found: {names}); name the one to audit")
    elem = controls[0]
    texts = {t.get("name"): t for t in root.iter("Text") if t.get("name")}
    target = texts.get(elem.get("toName", ""))
    if target is None or not (target.get("value") or "").startswith("$"):
        raise ValueError(f"<Labels name={elem.get('name')!r}> must mark a <Text value=\"$field\">")
    if (target.get("granularity") or "symbol") != "symbol" and target.get("granularity") != "word":
        raise ValueError(f"<Text name={target.get('name')!r}> granularity {target.get('granularity')!r} is not supported")
    labels, shown, hints = [], [], []
    for label in elem.iter("Label"):
        value = label.get("value")
        if value is None:
            raise ValueError("a <Label> has no value attribute")
        shown.append(value)
        labels.append(label.get("alias") or value)
        hints.append(label.get("hint") or "")
    return SpanControl(name=elem.get("name", ""), to_name=target.get("name", ""),
                       field=(target.get("value") or "$")[1:], labels=tuple(labels), shown=tuple(shown),
                       hints=tuple(hints))


def review_span_config(xml: str | ET.Element, *, control: str | None = None, answer_fields: Sequence[str] = ()) -> str:
    """The blind review config: the text and the entity types, nothing else (no hint, no pre-selection).

    ``answer_fields`` (round 2) adds each expert's round-1 spans, as text, above the entities to agree on.
    """
    ctrl = span_control(xml, control=control)
    view = ET.Element("View")
    if answer_fields:
        ET.SubElement(view, "Header", {"value": "Round 1 answers", "size": "5"})
        for name in answer_fields:
            ET.SubElement(view, "Text", {"name": name, "value": f"${name}"})
        ET.SubElement(view, "Header", {"value": "Agreed entities", "size": "5"})
    labels = ET.SubElement(view, "Labels", {"name": ctrl.name, "toName": ctrl.to_name})
    for value, stored in zip(ctrl.shown, ctrl.labels):
        attrs = {"value": value, **({"alias": stored} if stored != value else {})}
        ET.SubElement(labels, "Label", attrs)
    ET.SubElement(view, "Text", {"name": ctrl.to_name, "value": f"${ctrl.field}"})
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")


def span_spec(config: str | ET.Element, *, guidelines: str = "", control: str | None = None, name: str | None = None,
              label_field: str = "label", option_orders: int | None = None, calibration: str | None = None) -> Any:
    """The task spec of a span project: family ``spans``, its entity types then "not an entity".

    ``option_orders`` and ``calibration`` (the settings', None: the defaults) are carried for its questions
    (:func:`backend.task.generic.derived_options`)."""
    ctrl = span_control(config, control=control)
    return TaskSpec(
        name=name if name and name != "auto" else "spans", family="spans", prompt_dir=GENERIC_PROMPT_DIR,
        fields={"text": ctrl.field}, labels=(*ctrl.labels, NOT_AN_ENTITY), label_field=label_field,
        negative_label=NOT_AN_ENTITY,
        binding=ChoiceBinding(from_name=ctrl.name, to_name=ctrl.to_name, labels=ctrl.labels, shown=ctrl.shown),
        prompt=PromptText(guidelines=guidelines_text(guidelines), shown=ctrl.shown, hints=ctrl.hints),
        extra={ORDERS_KEY: resolve_orders(option_orders), CALIBRATION_KEY: resolve_calibration(calibration)},
    )


def span_control_of(spec: TaskSpec) -> SpanControl:
    """The ``<Labels>`` control a span spec was read from (entity types, their texts and hints)."""
    binding, text = spec.binding, spec.prompt
    types = tuple(lab for lab in spec.labels if lab != NOT_AN_ENTITY)
    return SpanControl(
        name=binding.from_name if binding else "label", to_name=binding.to_name if binding else "text",
        field=spec.fields["text"], labels=types, shown=tuple(binding.shown[:len(types)]) if binding and binding.shown
        else types, hints=tuple(text.hints[:len(types)]) if text and text.hints else ("",) * len(types))
