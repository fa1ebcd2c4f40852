"""A project's task spec, derived from its label config and labelling guidelines.

The project's label config is the one description of the task the project lead already wrote, and its
instructions (Label Studio's ``expert_instruction``) say how to apply it; the spec (inputs, label set,
family, built-in or generic prompts) is derived from both instead of asking for it twice. A built-in
spec is used only where the project shows its fields and labels; anything else gets the generic prompts
(:mod:`backend.task.generic`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from functools import lru_cache

from backend.task.generic import generic_spec, infer_family
from backend.common.labels import is_number
from backend.labelstudio.labelconfig import (
    INPUT_TAGS,
    ChoiceControl,
    InputObject,
    _field_of,
    _parse,
    find_choice_control,
    find_inputs,
)
from backend.labelstudio.controls_config import AUDITED_TAGS, ConfigControl, SkippedControl, list_controls, select_controls
from backend.controls.registry import control_type, spec_builder
from backend.spans.config import has_span_labels, span_spec
from backend.task.family import get_family
from backend.task.calibration_setting import resolve_calibration
from backend.task.option_orders import resolve_orders
from backend.task.spec import BUILTIN_SPECS, ChoiceBinding, ControlSpec, TaskSpec, load_spec


#: The audited tags as the errors name them ("<Choices>, <Rating>, ..."): the control registry's.
_AUDITED = ", ".join(f"<{tag}>" for tag in AUDITED_TAGS)
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


def _headers(root: ET.Element, inputs: list[InputObject], control: str) -> tuple[dict[str, str], str]:
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
        elif elem.get("name") == control and elem.get("toName") is not None:
            question = pending
            break
        elif elem.tag in AUDITED_TAGS and elem.get("toName") is not None:
            pending = ""  # that header introduced another audited control
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
    named_negative: str | None = None,
    option_orders: int | None = None,
    calibration: str | None = None,
) -> TaskSpec:
    """Derive the task spec from a project's label config (and its labelling guidelines).

    Every control a judge can answer (``<Choices>``, ``<Rating>``, ``<Number>``, ``<Pairwise>``) is audited:
    one control gives that control's own spec (what it always gave, so a one-control project keeps its
    model version); several give a ``controls`` spec holding each control's own spec
    (:mod:`backend.families.controls`). Other controls are skipped (:func:`skipped_controls` says why).

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
        The controls to audit, comma-separated (default: every control a judge can answer).
    guidelines : str, optional
        Labelling guidelines (HTML or text); default: those attached to ``xml``.
    family, negative_label : str, optional
        Override the inferred family of a one-control project (two labels binary, all numeric ordinal,
        else nominal) and name the "nothing here" class (default ``named_negative`` when it is one of the
        labels).
    named_negative, option_orders, calibration : optional
        The settings a spec is derived with (``Settings.spec_options()``, resolved at an edge from
        ``LABEL_AUDIT_NEGATIVE_LABEL``, ``LABEL_AUDIT_OPTION_ORDERS``, ``LABEL_AUDIT_CALIBRATION``), so the
        backend, its workers, the review and the report derive the same spec and model version; None: the
        defaults of :mod:`backend.common.defaults` (no named negative class).

    Raises
    ------
    ValueError
        With the reason, for a config this tool cannot audit.
    """
    # Every setting the derivation reads is part of the cache key, so a changed setting is a new spec.
    return _spec_once(xml, label_field, name, control, guidelines, family, negative_label, named_negative or None,
                      resolve_orders(option_orders), resolve_calibration(calibration))


#: Configs whose spec this process has derived (a spec is immutable; the worker, the importer, the review and
#: the report ask for the same config's spec many times per audit).
SPEC_CACHE_SIZE = 64


@lru_cache(maxsize=SPEC_CACHE_SIZE)
def _spec_once(xml: str, label_field: str | None, name: str | None, control: str | None, guidelines: str | None,
               family: str | None, negative_label: str | None, named_negative: str | None,
               option_orders: int, calibration: str) -> TaskSpec:
    """:func:`spec_from_label_config`, parsed once per process and distinct arguments (the settings included)."""
    xml, attached = split_guidelines(xml)
    root = _parse(xml)
    guide = guidelines if guidelines is not None else attached or ""
    audited, skipped = list_controls(root)
    if not audited and has_span_labels(root):  # NER: spans family (the tree parsed above, not the XML again)
        return span_spec(root, guidelines=guide, control=control, name=name, label_field=label_field or "label",
                         option_orders=option_orders, calibration=calibration)
    chosen = select_controls(audited, control)
    if not chosen:
        raise ValueError(_nothing_to_audit(root, skipped))
    label_field = label_field or "label"
    inputs = [obj for obj in find_inputs(root) if obj.field != label_field]
    if not inputs:
        other = sorted({e.tag for e in root.iter() if _field_of(e.get("value")) and e.tag not in INPUT_TAGS})
        why = f" (found <{other[0]}>: the judges read text and images only)" if other else ""
        raise ValueError("the label config shows no input this tool can judge bound to a data field "
                         f"(value=\"$field\"); supported inputs: {', '.join(sorted(INPUT_TAGS))}{why}")
    data_fields = list(dict.fromkeys(obj.field for obj in inputs))
    image_data = {obj.field for obj in inputs if obj.is_image}
    if image_data & {obj.field for obj in inputs if not obj.is_image}:
        raise ValueError(f"field {sorted(image_data)[0]!r} is shown both as an image and as text: give each its own field")
    context = _Context(root=root, inputs=inputs, name=name, label_field=label_field, guidelines=guide,
                       option_orders=option_orders, calibration=calibration)
    if len(chosen) == 1:
        return _control_spec(context, chosen[0], family=family, negative_label=negative_label,
                             named_negative=named_negative)
    return _controls_spec(context, chosen, negative_label=negative_label, named_negative=named_negative)


def skipped_controls(xml: str, *, control: str | None = None) -> list[SkippedControl]:
    """The controls of ``xml`` this tool leaves out, each with its reason (and those ``control`` leaves out)."""
    audited, skipped = list_controls(_parse(split_guidelines(xml)[0]))
    chosen = {c.name for c in select_controls(audited, control)}
    return skipped + [SkippedControl(c.name, c.tag, "not named in LABEL_AUDIT_CONTROL / --control")
                      for c in audited if c.name not in chosen]


def _nothing_to_audit(root: ET.Element, skipped: list[SkippedControl]) -> str:
    regions = [s for s in skipped if s.tag.endswith("Labels")]
    if regions and not any(e.get("name") for e in root.iter("Choices")):
        return (f"the label config labels regions (<{regions[0].tag}>): only per-item answers ({_AUDITED}) can be "
                "audited")
    why = "; ".join(s.describe() for s in skipped)
    return f"the label config has no control a judge can answer ({_AUDITED})" + (f": {why}" if why else "")


@dataclass(frozen=True)
class _Context:
    """What every control's spec is built from: the parsed config, its inputs and the project's words."""

    root: ET.Element
    inputs: list[InputObject]
    name: str | None
    label_field: str
    guidelines: str
    option_orders: int
    calibration: str


def _control_spec(ctx: _Context, ctrl: ConfigControl, *, family: str | None, negative_label: str | None,
                  named_negative: str | None) -> TaskSpec:
    """One control's own spec (exactly the spec a project with this control alone gets)."""
    if ctrl.tag == "Choices":
        return _choices_spec(ctx, find_choice_control(ctx.root, control=ctrl.name), family=family,
                             negative_label=negative_label, named_negative=named_negative)
    build = spec_builder(ctrl.tag)  # ValueError for a tag whose control type builds no spec of its own
    return build(ctrl, ctx.inputs, root=ctx.root, name=_spec_name(ctx.name), guidelines=ctx.guidelines,
                 label_field=ctx.label_field, titles=_headers(ctx.root, ctx.inputs, ctrl.name)[0],
                 option_orders=ctx.option_orders, calibration=ctx.calibration)


def _controls_spec(ctx: _Context, chosen: list[ConfigControl], *, negative_label: str | None,
                   named_negative: str | None) -> TaskSpec:
    """The ``controls`` spec: each control's own spec, in config order (a control that cannot be judged is
    refused with its name and reason)."""
    controls = []
    for ctrl in chosen:
        try:
            ctype = control_type(ctrl.tag)
            if ctype is not None and ctype.alone_reason:  # audited only as the project's one control
                raise ValueError(ctype.alone_reason)
            own = _control_spec(ctx, ctrl, family=None, negative_label=negative_label, named_negative=named_negative)
        except ValueError as exc:
            raise ValueError(f"<{ctrl.tag} name={ctrl.name!r}>: {exc} (audit the others with "
                             f"LABEL_AUDIT_CONTROL={','.join(c.name for c in chosen if c is not ctrl)})") from exc
        controls.append(ControlSpec(name=ctrl.name, tag=ctrl.tag, spec=own, title=ctrl.title or ctrl.name,
                                    when=ctrl.when))
    fields: dict[str, str] = {}
    images: list[str] = []
    for c in controls:
        fields.update(c.spec.fields)
        images += [v for v in c.spec.image_fields if v not in images]
    return TaskSpec(name=_spec_name(ctx.name), family="controls", prompt_dir="generic", fields=fields,
                    labels=tuple(c.name for c in controls), label_field=ctx.label_field, controls=tuple(controls),
                    image_fields=tuple(images))


def _spec_name(name: str | None) -> str:
    return name if name not in (None, "auto", *BUILTIN_SPECS) else "labelstudio"


def _choices_spec(ctx: _Context, choices: ChoiceControl, *, family: str | None, negative_label: str | None,
                  named_negative: str | None) -> TaskSpec:
    """A ``<Choices>`` control's spec: a built-in one where the project shows its fields and labels, else generic."""
    if choices.multiple:  # the project's own control says what an answer is
        if family not in (None, "multilabel"):
            raise ValueError(f"<Choices name={choices.name!r}> allows several choices (multi-label): "
                             f"family {family!r} does not fit it")
        family = "multilabel"
    labels = list(choices.labels)
    if len(labels) < 2:
        raise ValueError(f"<Choices name={choices.name!r}> needs at least two choices, found {len(labels)}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"<Choices name={choices.name!r}> repeats a choice: {labels}")
    if negative_label is None and named_negative in labels:
        negative_label = named_negative
    data_fields = list(dict.fromkeys(obj.field for obj in ctx.inputs))
    image_data = {obj.field for obj in ctx.inputs if obj.is_image}
    binding = ChoiceBinding(from_name=choices.name, to_name=choices.to_name, labels=choices.labels,
                            shown=choices.shown)
    builtin = None if image_data or (family is not None and not get_family(family).builtin_specs) \
        else _builtin_for(ctx.name, data_fields, labels)
    if builtin is not None:
        return _builtin_spec(builtin, labels, ctx.label_field, binding, family=family, negative_label=negative_label)
    return _generic_from_config(ctx, choices, binding=binding, family=family, negative_label=negative_label)


def _builtin_spec(builtin: TaskSpec, labels: list[str], label_field: str, binding: ChoiceBinding, *,
                  family: str | None, negative_label: str | None) -> TaskSpec:
    """A built-in spec bound to the project's control (its labels in the built-in's class order)."""
    if set(labels) != set(builtin.labels):
        ordered = sorted(labels, key=float) if all(is_number(lab) for lab in labels) else labels
    else:
        ordered = list(builtin.labels)
    return replace(
        builtin, family=family or builtin.family, labels=tuple(ordered), label_field=label_field,
        negative_label=negative_label or (builtin.negative_label if builtin.negative_label in ordered else ordered[0]),
        binding=binding, answer_tokens=(),
    )


def _generic_from_config(ctx: _Context, choices: ChoiceControl, *, binding: ChoiceBinding, family: str | None,
                         negative_label: str | None) -> TaskSpec:
    root, inputs, name = ctx.root, ctx.inputs, ctx.name
    titles, question = _headers(root, inputs, choices.name)
    labels = list(choices.labels)
    hints = _choice_hints(root, choices)
    shown = list(choices.shown)
    if get_family(family or infer_family(labels)).ordered and all(is_number(lab) for lab in labels):
        order = sorted(range(len(labels)), key=lambda i: float(labels[i]))
        labels, shown, hints = [labels[i] for i in order], [shown[i] for i in order], tuple(hints[i] for i in order)
    data_fields = list(dict.fromkeys(obj.field for obj in inputs))
    spec_name = name if name not in (None, "auto", *BUILTIN_SPECS) else "labelstudio"
    if negative_label is None and all(is_number(lab) for lab in labels) and len(labels) >= 2:
        negative_label = min(labels, key=float)
    return generic_spec(
        labels=labels, fields=data_fields, family=family, name=str(spec_name), guidelines=ctx.guidelines,
        shown=shown, hints=hints, titles=titles, question=question, negative_label=negative_label or "",
        label_field=ctx.label_field, binding=replace(binding, labels=tuple(labels), shown=tuple(shown)),
        image_fields=tuple(dict.fromkeys(obj.field for obj in inputs if obj.is_image)),
        option_orders=ctx.option_orders, calibration=ctx.calibration,
    )
