"""Read a Label Studio label config: the task spec it implies, and the blind configs derived from it.

The project's label config is the one description of the task the project lead already wrote, so the
spec (inputs, label set, binary vs ordinal) is derived from it instead of asking for it twice. The
review configs keep only what an expert needs to judge: the item's inputs and the label choices —
every header, instruction, extra control and pre-selected choice is dropped because any of them can
carry a hint (or the original label itself, when it was imported as a data field).

The stdlib parser is enough: Python >= 3.11 ships expat >= 2.4.1 (entity-expansion limits) and
ElementTree never fetches external entities.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from backend.generic import generic_spec, infer_family
from backend.taskspec import BUILTIN_SPECS, TaskSpec, load_spec

# Object tags whose ``value="$field"`` shows an item input (text-like data this tool judges).
INPUT_TAGS = frozenset({"Text", "HyperText", "Paragraphs", "Markdown", "Table"})
# Attributes of an input tag that only say how to render it (kept); everything else is dropped.
INPUT_ATTRS = ("name", "value", "valueType", "layout", "nameKey", "textKey", "granularity")
CHOICE_ATTRS = ("value", "alias", "hotkey")
EXPERT_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ChoiceControl:
    """The one ``<Choices>`` control a spec is read from.

    ``labels`` are what Label Studio stores in a result (the alias when set, else the value);
    ``shown`` is what the annotator sees for each of them.
    """

    name: str
    to_name: str
    labels: tuple[str, ...]
    shown: tuple[str, ...]


@dataclass(frozen=True)
class InputObject:
    """An object tag showing one data field."""

    tag: str
    name: str
    field: str
    attrs: tuple[tuple[str, str], ...]


def _parse(xml: str) -> ET.Element:
    if not xml or not xml.strip():
        raise ValueError("the label config is empty")
    try:
        return ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ValueError(f"the label config is not well-formed XML: {exc}") from exc


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
            attrs = tuple((k, elem.get(k, "")) for k in INPUT_ATTRS if elem.get(k) is not None)
            found.append(InputObject(tag=elem.tag, name=elem.get("name", ""), field=field, attrs=attrs))
    return found


def find_choice_control(root: ET.Element, *, control: str | None = None) -> ChoiceControl:
    """The single-choice ``<Choices>`` control to judge, picked by name when there are several."""
    controls = [c for c in root.iter("Choices") if c.get("name")]
    if control is not None:
        controls = [c for c in controls if c.get("name") == control]
        if not controls:
            raise ValueError(f"the label config has no <Choices name={control!r}>")
    if not controls:
        regions = sorted({e.tag for e in root.iter() if e.tag.endswith("Labels")})
        if regions:
            raise ValueError(f"the label config labels regions (<{regions[0]}>): only one label per item (a single-choice "
                             "<Choices>) can be audited, because the judges answer one class per item")
        raise ValueError("the label config has no <Choices> control: only classification projects can be audited")
    if len(controls) > 1:
        names = ", ".join(c.get("name", "") for c in controls)
        raise ValueError(f"the label config has several <Choices> controls ({names}): name the one to audit")
    elem = controls[0]
    if elem.get("choice", "single") not in ("single", "single-radio"):
        raise ValueError(f"<Choices name={elem.get('name')!r}> allows several choices: multi-label is not supported, "
                         "because the ensemble reads one distribution over mutually exclusive labels")
    if elem.get("perRegion", "false").lower() == "true":
        raise ValueError(f"<Choices name={elem.get('name')!r}> is per region: only per-item labels are supported")
    shown, labels = [], []
    for choice in elem.iter("Choice"):
        value = choice.get("value")
        if value is None:
            raise ValueError("a <Choice> has no value attribute")
        shown.append(value)
        labels.append(choice.get("alias") or value)
    return ChoiceControl(
        name=elem.get("name", ""), to_name=elem.get("toName", ""), labels=tuple(labels), shown=tuple(shown)
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


#: Names the "nothing here" class of projects whose labels are words (strict aggregation, probes).
NEGATIVE_ENV = "LABEL_AUDIT_NEGATIVE_LABEL"
#: Marks the project's labelling guidelines carried along with its label config (see ``attach_guidelines``).
GUIDELINES_MARK = "label-audit-guidelines:"


def attach_guidelines(label_config: str, guidelines: str | None) -> str:
    """The label config with the project's guidelines appended as an XML comment (hex-encoded).

    The backend, the queue and the ledger carry one opaque label-config string per project; appending
    the guidelines to it lets every one of them derive the same spec and model version, and makes a
    change of the guidelines a change of that string (hence a new model version). XML parsers, and
    :func:`review_label_config`, ignore the comment. No guidelines: the config unchanged.
    """
    xml, _ = split_guidelines(label_config)
    if not guidelines or not guidelines.strip():
        return xml
    return f"{xml.rstrip()}\n<!--{GUIDELINES_MARK}{guidelines.encode('utf-8').hex()}-->"


def split_guidelines(label_config: str) -> tuple[str, str | None]:
    """``(label config without the guidelines comment, guidelines or None)``."""
    text = label_config or ""
    at = text.rfind("<!--" + GUIDELINES_MARK)
    if at < 0 or not text.rstrip().endswith("-->"):
        return text, None
    encoded = text[at + 4 + len(GUIDELINES_MARK):].rstrip()[:-3]
    try:
        return text[:at].rstrip(), bytes.fromhex(encoded).decode("utf-8")
    except ValueError:
        return text, None


def _headers(root: ET.Element, inputs: list[InputObject], control: ChoiceControl) -> tuple[dict[str, str], str]:
    """``<Header>`` texts: the question (the last header before the choices) and the inputs' titles.

    With several inputs, a header right before an input names it ("Source", "Summary"). With one
    input, any header is about the task (LS's sentiment template: "Choose text sentiment:").
    """
    titles: dict[str, str] = {}
    question = ""
    pending = ""
    by_name = {obj.name: obj.field for obj in inputs}
    several = len(set(by_name.values())) > 1
    for elem in root.iter():
        value = (elem.get("value") or "").strip()
        if elem.tag == "Header" and value and not value.startswith("$"):
            pending = value
        elif elem.tag in INPUT_TAGS and elem.get("name") in by_name and several:
            if pending:
                titles.setdefault(by_name[elem.get("name", "")], pending.rstrip(":").strip())
            pending = ""
        elif elem.tag == "Choices" and elem.get("name") == control.name:
            question = pending
            break
    return titles, question


def _choice_hints(root: ET.Element, control: ChoiceControl) -> tuple[str, ...]:
    elem = next(c for c in root.iter("Choices") if c.get("name") == control.name)
    return tuple((choice.get("hint") or "").strip() for choice in elem.iter("Choice"))


def _builtin_for(name: str | None, data_fields: list[str], labels: list[str]) -> TaskSpec | None:
    """The built-in spec to use: the one asked for, else one whose fields and labels the project has."""
    candidates = [name] if name in BUILTIN_SPECS else list(BUILTIN_SPECS) if name in (None, "auto") else []
    for candidate in candidates:
        builtin = load_spec(candidate)
        fits = set(builtin.fields.values()) <= set(data_fields) and set(labels) == set(builtin.labels)
        if fits or (name == candidate and set(builtin.fields.values()) <= set(data_fields)):
            return builtin
    return None


def spec_from_label_config(
    xml: str,
    *,
    label_field: str | None = None,
    name: str | None = None,
    control: str | None = None,
    guidelines: str | None = None,
    family: str | None = None,
    negative_label: str | None = None,
) -> TaskSpec:
    """Derive the task spec from a project's label config (and its labelling guidelines).

    Parameters
    ----------
    xml : str
        The project's label config, possibly carrying its guidelines (:func:`attach_guidelines`).
    label_field : str, optional
        Data field holding the original label, for projects imported with the label as data (it is
        then never treated as an input). Default ``"label"``.
    name : str, optional
        ``None``/``"auto"``: a built-in spec (factual-consistency, likert, relevance) when the project
        shows its data fields and label set, else the generic prompts. A built-in name: that spec when
        the project has its fields (else generic). Any other name: generic prompts under that name.
    control : str, optional
        Name of the ``<Choices>`` control to audit when the config has several.
    guidelines : str, optional
        Labelling guidelines (HTML or text); default: those attached to ``xml``.
    family, negative_label : str, optional
        Override the inferred family (two labels binary, all numeric ordinal, else nominal) and name
        the "nothing here" class (default ``$LABEL_AUDIT_NEGATIVE_LABEL`` when it is one of the labels,
        so the backend, review and report agree on it).

    Raises
    ------
    ValueError
        With the reason, for a config this tool cannot audit.
    """
    xml, attached = split_guidelines(xml)
    root = _parse(xml)
    choices = find_choice_control(root, control=control)
    label_field = label_field or "label"
    labels = list(choices.labels)
    if len(labels) < 2:
        raise ValueError(f"<Choices name={choices.name!r}> needs at least two choices, found {len(labels)}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"<Choices name={choices.name!r}> repeats a choice: {labels}")
    if negative_label is None and os.environ.get(NEGATIVE_ENV) in labels:
        negative_label = os.environ[NEGATIVE_ENV]
    inputs = [obj for obj in find_inputs(root) if obj.field != label_field]
    if not inputs:
        other = sorted({e.tag for e in root.iter() if _field_of(e.get("value")) and e.tag not in INPUT_TAGS})
        why = f" (found <{other[0]}>: the judges are text models)" if other else ""
        raise ValueError("the label config shows no text input bound to a data field (value=\"$field\"); "
                         f"supported inputs: {', '.join(sorted(INPUT_TAGS))}{why}")
    data_fields = list(dict.fromkeys(obj.field for obj in inputs))
    extra = {"from_name": choices.name, "to_name": choices.to_name, "source": "labelstudio",
             "choice_labels": choices.labels, "choice_shown": choices.shown}
    builtin = None if family == "nominal" else _builtin_for(name, data_fields, labels)
    if builtin is not None:
        return _builtin_spec(builtin, labels, label_field, extra, family=family, negative_label=negative_label)
    return _generic_from_config(root, choices, inputs, name=name, label_field=label_field, extra=extra,
                                guidelines=guidelines if guidelines is not None else attached or "",
                                family=family, negative_label=negative_label)


def _builtin_spec(builtin: TaskSpec, labels: list[str], label_field: str, extra: dict, *,
                  family: str | None, negative_label: str | None) -> TaskSpec:
    """A built-in spec bound to the project's control (its labels in the built-in's class order)."""
    if set(labels) != set(builtin.labels):
        ordered = sorted(labels, key=float) if all(_is_number(lab) for lab in labels) else labels
    else:
        ordered = list(builtin.labels)
    return TaskSpec(
        name=builtin.name, family=family or builtin.family, prompt_dir=builtin.prompt_dir,  # type: ignore[arg-type]
        fields=dict(builtin.fields), labels=tuple(ordered), label_field=label_field,
        negative_label=negative_label or (builtin.negative_label if builtin.negative_label in ordered else ordered[0]),
        extra={**dict(builtin.extra), **extra},
    )


def _generic_from_config(root: ET.Element, choices: ChoiceControl, inputs: list[InputObject], *, name: str | None,
                         label_field: str, extra: dict, guidelines: str, family: str | None,
                         negative_label: str | None) -> TaskSpec:
    titles, question = _headers(root, inputs, choices)
    labels = list(choices.labels)
    hints = _choice_hints(root, choices)
    shown = list(choices.shown)
    if (family or infer_family(labels)) == "ordinal" and all(_is_number(lab) for lab in labels):
        order = sorted(range(len(labels)), key=lambda i: float(labels[i]))
        labels, shown, hints = [labels[i] for i in order], [shown[i] for i in order], tuple(hints[i] for i in order)
    data_fields = list(dict.fromkeys(obj.field for obj in inputs))
    spec_name = name if name not in (None, "auto", *BUILTIN_SPECS) else "labelstudio"
    if negative_label is None and all(_is_number(lab) for lab in labels) and len(labels) >= 2:
        negative_label = min(labels, key=float)
    return generic_spec(
        labels=labels, fields=data_fields, family=family, name=str(spec_name), guidelines=guidelines,
        shown=shown, hints=hints, titles=titles, question=question, negative_label=negative_label or "",
        label_field=label_field, extra={**extra, "choice_labels": tuple(labels), "choice_shown": tuple(shown)},
    )


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
        view, "Choices", {"name": choices.name, "toName": to_name, "choice": "single", "showInline": "true",
                          "required": "true"}
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


def choice_from_result(result: list, *, control: str) -> str | None:
    """The chosen label in an annotation result (list of dicts), or None if the control is absent.

    A malformed region (``value`` not an object, ``choices`` not a list) counts as no answer: one bad
    annotation must not stop the batch it came in.
    """
    for region in result or ():
        item = region if isinstance(region, dict) else getattr(region, "__dict__", {})
        if item.get("from_name") != control or item.get("type") != "choices":
            continue
        value = item.get("value")
        picked = value.get("choices") if isinstance(value, dict) else None
        if isinstance(picked, str):
            picked = [picked]
        if isinstance(picked, (list, tuple)) and picked:
            return str(picked[0])
    return None


def label_config_for_spec(spec: TaskSpec, *, choice_name: str = "label") -> str:
    """A minimal Label Studio label config for ``spec``: one ``<Text>`` per input field, one ``<Choices>``.

    The inverse of :func:`spec_from_label_config` (labels, fields and family survive the round trip), so a
    project created for a file of items is audited exactly as ``label-audit score`` audits the file.

    Examples
    --------
    >>> xml = label_config_for_spec(load_spec("factual-consistency"))
    >>> spec_from_label_config(xml).labels
    ('0', '1')
    """
    view = ET.Element("View")
    data_fields = list(dict.fromkeys(spec.fields.values()))
    for field_name in data_fields:
        ET.SubElement(view, "Text", name=field_name, value=f"${field_name}")
    choices = ET.SubElement(view, "Choices", name=choice_name, toName=data_fields[-1], choice="single")
    for label in spec.labels:
        ET.SubElement(choices, "Choice", value=label)
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")
