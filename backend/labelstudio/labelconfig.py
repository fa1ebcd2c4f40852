"""Read a Label Studio label config: its inputs and choices, and the blind configs derived from it.

The project's label config is the one description of the task the project lead already wrote, so the
spec (inputs, label set, binary vs ordinal) is derived from it instead of asking for it twice. The
review configs keep only what an expert needs to judge: the item's inputs and the label choices —
every header, instruction, extra control and pre-selected choice is dropped because any of them can
carry a hint (or the original label itself, when it was imported as a data field).

Configs are parsed by defusedxml, which refuses any entity declaration (the one parser,
:mod:`backend.controls.parse`; its parsed input type is :class:`backend.controls.element.InputObject`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from backend.controls.choices import ChoiceControl, find_choice_control
from backend.controls.element import IMAGE_TAGS, InputObject
from backend.controls.parse import parse_label_config
from backend.controls.registry import input_tags
from backend.families.single import choice_from_result  # noqa: F401  (re-exported: its readers import it here)
from backend.task.spec import TaskSpec

# Object tags whose ``value="$field"`` shows a text-like item input.
TEXT_TAGS = frozenset({"Text", "HyperText", "Paragraphs", "Markdown", "Table"})
# Every object tag this tool judges an input of; any other object tag bound to data is refused.
INPUT_TAGS = TEXT_TAGS | IMAGE_TAGS | input_tags()  # and those a control type brings (the control registry)
# Attributes of an input tag that only say how to render it (kept); everything else is dropped.
INPUT_ATTRS = ("name", "value", "valueType", "layout", "nameKey", "textKey", "granularity")
CHOICE_ATTRS = ("value", "alias", "hotkey")
EXPERT_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


_parse = parse_label_config


def _field_of(value: str | None) -> str | None:
    """``"$text"`` -> ``"text"``; static values (no leading ``$``) are not data fields."""
    if value and value.startswith("$") and len(value) > 1:
        return value[1:]
    return None


def find_inputs(root: ET.Element) -> list[InputObject]:
    """The input objects bound to a data field, in document order."""
    found = []
    for elem in root.iter():
        field = _field_of(elem.get("value"))
        if elem.tag in INPUT_TAGS and field and elem.get("name"):
            if elem.tag in IMAGE_TAGS and elem.get("valueList"):
                raise ValueError(f"<Image name={elem.get('name')!r}> shows a list of images (valueList): only one "
                                 "image per <Image> input is supported")
            attrs = tuple((k, elem.get(k, "")) for k in INPUT_ATTRS if elem.get(k) is not None)
            found.append(InputObject(tag=elem.tag, name=elem.get("name", ""), field=field, attrs=attrs))
    return found


def _review_root(xml: str, *, control: str | None, exclude_fields: tuple[str, ...]):
    root = _parse(xml)
    choices = find_choice_control(root, control=control)
    choice_elems = {c.get("alias") or c.get("value"): c for c in root.iter("Choice")}
    inputs = [obj for obj in find_inputs(root) if obj.field not in exclude_fields]
    if not inputs:
        raise ValueError("the label config shows no input left to review")
    view = ET.Element("View")
    for obj in inputs:
        ET.SubElement(view, obj.tag, dict(obj.attrs))
    return view, choices, choice_elems, inputs


def _append_choices(view: ET.Element, choices: ChoiceControl, choice_elems, inputs) -> None:
    to_name = choices.to_name if choices.to_name in {o.name for o in inputs} else inputs[-1].name
    ctrl = ET.SubElement(
        view, "Choices", {"name": choices.name, "toName": to_name, "choice": choices.choice_mode,
                          "showInline": "true", **({} if choices.multiple else {"required": "true"})}
    )
    for label in choices.labels:
        src = choice_elems[label]
        ET.SubElement(ctrl, "Choice", {k: src.get(k, "") for k in CHOICE_ATTRS if src.get(k) is not None})


def review_label_config(
    source_xml: str, *, control: str | None = None, exclude_fields: tuple[str, ...] = ("label",)
) -> str:
    """The blind round-1 config: the item's inputs and the label choices, nothing else.

    Headers, instructions, other controls, ``hint``/``selected`` attributes and any input showing one of
    ``exclude_fields`` (the original label imported as data) are dropped.
    """
    view, choices, choice_elems, inputs = _review_root(source_xml, control=control, exclude_fields=exclude_fields)
    _append_choices(view, choices, choice_elems, inputs)
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")


def expert_field(index: int) -> str:
    """Data field holding expert ``index``'s round-1 answer in a reconciliation task."""
    return f"expert_{EXPERT_LETTERS[index].lower()}"


def expert_name(index: int) -> str:
    """Display name of the index-th expert: "Expert A", "Expert B"..."""
    if not 0 <= index < len(EXPERT_LETTERS):
        raise ValueError(f"at most {len(EXPERT_LETTERS)} experts, got index {index}")
    return f"Expert {EXPERT_LETTERS[index]}"


def reconcile_label_config(
    source_xml: str,
    *,
    n_experts: int,
    control: str | None = None,
    exclude_fields: tuple[str, ...] = ("label",),
) -> str:
    """The round-2 config: the inputs, each expert's round-1 answer as "Expert A", "Expert B"..., the choices."""
    if n_experts < 2:
        raise ValueError("reconciliation needs at least two experts")
    view, choices, choice_elems, inputs = _review_root(source_xml, control=control, exclude_fields=exclude_fields)
    ET.SubElement(view, "Header", {"value": "Round 1 answers"})
    for i in range(n_experts):
        ET.SubElement(view, "Text", {"name": expert_field(i), "value": f"${expert_field(i)}"})
    ET.SubElement(view, "Header", {"value": "Agreed label"})
    _append_choices(view, choices, choice_elems, inputs)
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")


def label_config_for_spec(spec: TaskSpec, *, choice_name: str = "label") -> str:
    """A minimal Label Studio label config for ``spec``: one ``<Text>`` (``<Image>`` for an image field) per
    input field, one ``<Choices>``.

    The inverse of :func:`spec_from_label_config` (labels, fields and family survive the round trip), so a
    project created for a file of items is audited exactly as ``label-audit score`` audits the file.

    Examples
    --------
    >>> from backend.labelstudio.projectspec import spec_from_label_config
    >>> xml = label_config_for_spec(load_spec("factual-consistency"))
    >>> spec_from_label_config(xml).labels
    ('0', '1')
    """
    view = ET.Element("View")
    data_fields = list(dict.fromkeys(spec.fields.values()))
    image_data = {spec.fields[var] for var in spec.image_fields}
    for field_name in data_fields:
        ET.SubElement(view, "Image" if field_name in image_data else "Text", name=field_name, value=f"${field_name}")
    mode = "multiple" if spec.task_family.multi_valued else "single"
    choices = ET.SubElement(view, "Choices", name=choice_name, toName=data_fields[-1], choice=mode)
    for label in spec.labels:
        ET.SubElement(choices, "Choice", value=label)
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")
