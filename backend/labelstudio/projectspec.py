"""A project's task spec, derived from its label config and labelling guidelines.

The project's label config is the one description of the task the project lead already wrote, and its
instructions (Label Studio's ``expert_instruction``) say how to apply it; the spec (inputs, label set,
family, built-in or generic prompts) is derived from both instead of asking for it twice.

This module orchestrates: it parses the config once, lists and selects the controls, reads the inputs and
the ``<Header>`` texts, and returns one control's own spec or the several-controls spec. Each control's own
spec is built by its control type's ``spec_builder`` (:mod:`backend.controls`), every one called alike with a
:class:`~backend.controls.control_type.SpecContext`; a ``<Choices>``' (a built-in spec where the project shows
its fields and labels, else the generic prompts) by :mod:`backend.families.choices_spec`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import lru_cache

from backend.labelstudio.labelconfig import INPUT_TAGS, InputObject, _field_of, _parse, find_inputs
from backend.labelstudio.controls_config import AUDITED_TAGS, ConfigControl, SkippedControl, list_controls, select_controls
from backend.controls.control_type import SpecContext
from backend.controls.registry import control_type, spec_builder
from backend.spans.config import has_span_labels, span_spec
from backend.task.calibration_setting import resolve_calibration
from backend.task.option_orders import resolve_orders
from backend.task.multilabel_orders import resolve_multilabel_orders
from backend.task.spec import BUILTIN_SPECS, ControlSpec, TaskSpec


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
    multilabel_orders: int | None = None,
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
    named_negative, option_orders, calibration, multilabel_orders : optional
        The settings a spec is derived with (``Settings.spec_options()``, resolved at an edge from
        ``LABEL_AUDIT_NEGATIVE_LABEL``, ``LABEL_AUDIT_OPTION_ORDERS``, ``LABEL_AUDIT_CALIBRATION``,
        ``LABEL_AUDIT_MULTILABEL_ORDERS``), so the
        backend, its workers, the review and the report derive the same spec and model version; None: the
        defaults of :mod:`backend.common.defaults` (no named negative class).

    Raises
    ------
    ValueError
        With the reason, for a config this tool cannot audit.
    """
    # Every setting the derivation reads is part of the cache key, so a changed setting is a new spec.
    return _spec_once(xml, label_field, name, control, guidelines, family, negative_label, named_negative or None,
                      resolve_orders(option_orders), resolve_calibration(calibration),
                      resolve_multilabel_orders(multilabel_orders))


#: Configs whose spec this process has derived (a spec is immutable; the worker, the importer, the review and
#: the report ask for the same config's spec many times per audit).
SPEC_CACHE_SIZE = 64


@lru_cache(maxsize=SPEC_CACHE_SIZE)
def _spec_once(xml: str, label_field: str | None, name: str | None, control: str | None, guidelines: str | None,
               family: str | None, negative_label: str | None, named_negative: str | None,
               option_orders: int, calibration: str, multilabel_orders: int = 1) -> TaskSpec:
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
    context = SpecContext(root=root, inputs=inputs, name=_spec_name(name), asked=name, guidelines=guide,
                          label_field=label_field, option_orders=option_orders, calibration=calibration,
                          negative_label=negative_label, named_negative=named_negative,
                          multilabel_orders=multilabel_orders)
    if len(chosen) == 1:
        return _control_spec(context, chosen[0], family=family)
    return _controls_spec(context, chosen)


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


def _control_spec(ctx: SpecContext, ctrl: ConfigControl, *, family: str | None = None) -> TaskSpec:
    """One control's own spec (exactly the spec a project with this control alone gets), by its control type's
    builder, given the headers naming the inputs and this control."""
    build = spec_builder(ctrl.tag)  # ValueError for a tag whose control type builds no spec of its own
    titles, question = _headers(ctx.root, ctx.inputs, ctrl.name)
    return build(ctrl, replace(ctx, titles=titles, question=question, family=family))


def _controls_spec(ctx: SpecContext, chosen: list[ConfigControl]) -> TaskSpec:
    """The ``controls`` spec: each control's own spec, in config order (a control that cannot be judged is
    refused with its name and reason)."""
    controls = []
    for ctrl in chosen:
        try:
            ctype = control_type(ctrl.tag)
            if ctype is not None and ctype.alone_reason:  # audited only as the project's one control
                raise ValueError(ctype.alone_reason)
            own = _control_spec(ctx, ctrl)
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
    return TaskSpec(name=ctx.name, family="controls", prompt_dir="generic", fields=fields,
                    labels=tuple(c.name for c in controls), label_field=ctx.label_field, controls=tuple(controls),
                    image_fields=tuple(images))


def _spec_name(name: str | None) -> str:
    return name if name not in (None, "auto", *BUILTIN_SPECS) else "labelstudio"
