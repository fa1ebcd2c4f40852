"""The spec of a ``<Rating>``, ``<Number>`` or ``<Pairwise>`` control: its labels, its question, its inputs.

A ``<Choices>`` control lists its own labels and their texts; these controls do not, so their options are
derived from the control's attributes (``maxRating``; ``min``/``max``/``step``; the two objects of
``toName``) and worded here, once, for the generic prompts. The question is the ``<Header>`` that
introduces the control (LS's grading templates: "Rate the response"), else a neutral default.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from backend.task.generic import generic_spec
from backend.labelstudio.controls_config import ConfigControl
from backend.labelstudio.labelconfig import InputObject
from backend.families.number import number_labels
from backend.families.rating import rating_labels
from backend.families.pairwise import LEFT, PAIR_KEY, RIGHT
from backend.task.option_orders import EXTRA_KEY as ORDERS_KEY
from backend.task.spec import ChoiceBinding, TaskSpec

__all__ = ["scale_spec"]


def scale_spec(ctrl: ConfigControl, inputs: Sequence[InputObject], *, name: str, guidelines: str, label_field: str,
               titles: Mapping[str, str], option_orders: int | None = None, calibration: str | None = None) -> TaskSpec:
    """The control's spec (family ``rating``, ``number`` or ``pairwise``); ValueError with the reason.

    ``option_orders`` and ``calibration``: the settings' (:func:`backend.task.generic.generic_spec`; None: the defaults).
    """
    fields = list(dict.fromkeys(obj.field for obj in inputs))
    images = tuple(dict.fromkeys(obj.field for obj in inputs if obj.is_image))
    if ctrl.tag == "Pairwise":
        return _pairwise(ctrl, inputs, name=name, guidelines=guidelines, label_field=label_field, titles=titles,
                         option_orders=option_orders)
    if ctrl.tag == "Rating":
        labels = rating_labels(ctrl.get("maxRating"), name=ctrl.name)
        family, kind = "rating", "rating"
        question = ctrl.title or f"How many stars, from 1 to {labels[-1]}, does this item deserve?"
    else:
        labels = number_labels(minimum=ctrl.get("min"), maximum=ctrl.get("max"), step=ctrl.get("step"), name=ctrl.name)
        family, kind = "number", "number"
        question = ctrl.title or f"Which number from {labels[0]} to {labels[-1]} does this item deserve?"
    shown = [f"{labels[0]} (lowest)", *labels[1:-1], f"{labels[-1]} (highest)"]
    binding = ChoiceBinding(from_name=ctrl.name, to_name=ctrl.to_name, labels=labels, shown=tuple(shown), kind=kind)
    return generic_spec(labels=labels, fields=fields, family=family, name=name, guidelines=guidelines, shown=shown,
                        titles=titles, question=question, negative_label=labels[0], label_field=label_field,
                        binding=binding, image_fields=images, option_orders=option_orders, calibration=calibration)


def _pairwise(ctrl: ConfigControl, inputs: Sequence[InputObject], *, name: str, guidelines: str, label_field: str,
              titles: Mapping[str, str], option_orders: int | None) -> TaskSpec:
    """A preference between the two objects of ``toName`` (left, right); the other inputs are context.

    The spec keeps its option orders for its two order questions (:mod:`backend.families.pairwise`), which
    are never calibrated (both orders already cancel the position lean)."""
    by_name = {obj.name: obj for obj in inputs}
    pair = [n.strip() for n in ctrl.to_name.split(",") if n.strip()]
    if len(pair) != 2 or any(n not in by_name for n in pair):
        raise ValueError(f"<Pairwise name={ctrl.name!r}> compares toName={ctrl.to_name!r}: it needs two inputs of the "
                         "config bound to data fields")
    left, right = by_name[pair[0]].field, by_name[pair[1]].field
    if left == right:
        raise ValueError(f"<Pairwise name={ctrl.name!r}> compares field {left!r} with itself")
    if by_name[pair[0]].is_image or by_name[pair[1]].is_image:
        raise ValueError(f"<Pairwise name={ctrl.name!r}> compares images: only text responses are compared")
    fields = [f for f in dict.fromkeys(obj.field for obj in inputs) if f not in (left, right)] + [left, right]
    labels = (LEFT, RIGHT)
    binding = ChoiceBinding(from_name=ctrl.name, to_name=ctrl.to_name, labels=labels,
                            shown=("the left response", "the right response"), kind="pairwise")
    spec = generic_spec(labels=labels, fields=fields, family="nominal", name=name, guidelines=guidelines,
                        titles=titles, question=ctrl.title or "Which response is better?", label_field=label_field,
                        binding=binding, option_orders=option_orders)
    return replace(spec, family="pairwise", extra={ORDERS_KEY: spec.extra[ORDERS_KEY], PAIR_KEY: (left, right)})
