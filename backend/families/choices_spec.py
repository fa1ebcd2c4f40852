"""The spec of a ``<Choices>``: a built-in spec where the project shows its fields and labels, else generic.

A ``<Choices>`` is judged as binary, ordinal, nominal (:mod:`backend.families.single`) or, with
``choice="multiple"``, multi-label (:mod:`backend.families.multilabel`). Unlike the other controls it may match
a built-in spec (factual-consistency, likert, relevance: its own prompts and flag rule) when the project shows
that spec's data fields and label set, or names it; anything else, and every image project, gets the generic
prompts (:mod:`backend.task.generic`) with the config's own words: its ``<Header>`` question, the inputs'
titles, each choice's ``hint``. Numeric labels of an ordered family are put in numeric order.
"""

from __future__ import annotations

from dataclasses import replace

from backend.common.labels import is_number
from backend.controls.choices import ChoiceControl, find_choice_control
from backend.controls.control_type import SpecContext
from backend.controls.element import ConfigControl
from backend.task.family import get_family
from backend.task.generic import generic_spec, infer_family
from backend.task.spec import BUILTIN_SPECS, ChoiceBinding, TaskSpec, load_spec

__all__ = ["control_spec"]


def control_spec(ctrl: ConfigControl, ctx: SpecContext) -> TaskSpec:
    """A ``<Choices>``'s spec (its builder in :mod:`backend.controls.choices`); ValueError with the reason (fewer
    than two choices, a repeated choice, a family that does not fit a multiple-choice control)."""
    choices = find_choice_control(ctx.root, control=ctrl.name)
    family, negative_label = ctx.family, ctx.negative_label
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
    if negative_label is None and ctx.named_negative in labels:
        negative_label = ctx.named_negative
    data_fields = list(dict.fromkeys(obj.field for obj in ctx.inputs))
    image_data = {obj.field for obj in ctx.inputs if obj.is_image}
    binding = ChoiceBinding(from_name=choices.name, to_name=choices.to_name, labels=choices.labels,
                            shown=choices.shown)
    builtin = None if image_data or (family is not None and not get_family(family).builtin_specs) \
        else _builtin_for(ctx.asked, data_fields, labels)
    if builtin is not None:
        return _builtin_spec(builtin, labels, ctx.label_field, binding, family=family, negative_label=negative_label)
    return _generic_spec(ctx, choices, binding=binding, family=family, negative_label=negative_label)


def _builtin_for(name: str | None, data_fields: list[str], labels: list[str]) -> TaskSpec | None:
    """The built-in spec to use: the one asked for, else one whose fields and labels the project has."""
    candidates = [name] if name in BUILTIN_SPECS else list(BUILTIN_SPECS) if name in (None, "auto") else []
    for candidate in candidates:
        builtin = load_spec(candidate)
        fits = set(builtin.fields.values()) <= set(data_fields) and set(labels) == set(builtin.labels)
        if fits or (name == candidate and set(builtin.fields.values()) <= set(data_fields)):
            return builtin
    return None


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


def _choice_hints(ctx: SpecContext, control: ChoiceControl) -> tuple[str, ...]:
    """Each choice's ``hint`` attribute ("" where it has none), in config order."""
    elem = next(c for c in ctx.root.iter("Choices") if c.get("name") == control.name)
    return tuple((choice.get("hint") or "").strip() for choice in elem.iter("Choice"))


def _generic_spec(ctx: SpecContext, choices: ChoiceControl, *, binding: ChoiceBinding, family: str | None,
                  negative_label: str | None) -> TaskSpec:
    """The generic prompts with the config's words (question, titles, hints); numeric ordered labels sorted."""
    labels = list(choices.labels)
    hints = _choice_hints(ctx, choices)
    shown = list(choices.shown)
    if get_family(family or infer_family(labels)).ordered and all(is_number(lab) for lab in labels):
        order = sorted(range(len(labels)), key=lambda i: float(labels[i]))
        labels, shown, hints = [labels[i] for i in order], [shown[i] for i in order], tuple(hints[i] for i in order)
    data_fields = list(dict.fromkeys(obj.field for obj in ctx.inputs))
    if negative_label is None and all(is_number(lab) for lab in labels) and len(labels) >= 2:
        negative_label = min(labels, key=float)
    return generic_spec(
        labels=labels, fields=data_fields, family=family, name=ctx.name, guidelines=ctx.guidelines,
        shown=shown, hints=hints, titles=ctx.titles, question=ctx.question, negative_label=negative_label or "",
        label_field=ctx.label_field, binding=replace(binding, labels=tuple(labels), shown=tuple(shown)),
        image_fields=tuple(dict.fromkeys(obj.field for obj in ctx.inputs if obj.is_image)),
        option_orders=ctx.option_orders, calibration=ctx.calibration, multilabel_orders=ctx.multilabel_orders,
    )
