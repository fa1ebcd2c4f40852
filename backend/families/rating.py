"""Star ratings (``<Rating maxRating="5">``): an ordinal scale 1..maxRating read from a ``rating`` result.

A rating is an ordered grade exactly as a 1-5 ``<Choices>`` is, so the family is the ordinal one (median
of annotators, ``|prediction - original| > delta`` flag rule, threshold 0.2); what differs is only how
Label Studio stores it. A person's submission on Label Studio 1.23.2 reads back as
``{"from_name": "rating", "to_name": "text", "type": "rating", "value": {"rating": 4}}`` (docs/controls.md);
the labels are the grades as strings (``"1"``..``"5"``), so the ledger and the review stores keep one
string per item as for any single-choice task.

What a rating reads is checked here, once: the config's ``maxRating`` (:func:`rating_labels`) and each
answer (:meth:`RatingFamily.read_result`: a grade off the scale, a fraction or ``null`` is that item's error,
:mod:`backend.families.answers`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from backend.controls.control_type import SpecContext
from backend.controls.element import ConfigControl, InputObject
from backend.task.generic import MAX_CLASSES, generic_spec
from backend.task.spec import ChoiceBinding
from backend.task.family import register_family
from backend.families.answers import control_answer
from backend.families.single import OrdinalFamily

if TYPE_CHECKING:
    from backend.task.spec import TaskSpec

__all__ = ["DEFAULT_MAX_RATING", "RatingFamily", "control_spec", "rating_labels", "scalar_result", "scale_spec"]

#: Label Studio's default number of stars.
DEFAULT_MAX_RATING = 5


def rating_labels(max_rating: str | None, *, name: str) -> tuple[str, ...]:
    """The grades of a ``<Rating maxRating>`` (``"1"``..``"N"``); ValueError with the reason unless 2 to 26 stars
    (one lettered option per grade)."""
    top = (max_rating or str(DEFAULT_MAX_RATING)).strip()
    if not re.fullmatch(r"[0-9]{1,3}", top) or not 2 <= int(top) <= MAX_CLASSES:
        raise ValueError(f"<Rating name={name!r}> has maxRating={max_rating!r}: 2 to {MAX_CLASSES} stars can be "
                         "judged")
    return tuple(str(v) for v in range(1, int(top) + 1))


def scale_spec(ctrl: ConfigControl, inputs: Sequence[InputObject], *, labels: Sequence[str], family: str, question: str,
               name: str, guidelines: str, label_field: str, titles: Mapping[str, str], option_orders: int | None,
               calibration: str | None) -> "TaskSpec":
    """The spec of a control whose options are a scale of numbers (``<Rating>``, ``<Number>``): the generic
    prompts over the config's inputs, the ends of the scale worded once, the lowest grade its negative class.

    The question is the control's ``<Header>`` title, else ``question``; ``option_orders`` and ``calibration``
    are the settings' (:func:`backend.task.generic.generic_spec`; None: the defaults)."""
    fields = list(dict.fromkeys(obj.field for obj in inputs))
    images = tuple(dict.fromkeys(obj.field for obj in inputs if obj.is_image))
    shown = [f"{labels[0]} (lowest)", *labels[1:-1], f"{labels[-1]} (highest)"]
    binding = ChoiceBinding(from_name=ctrl.name, to_name=ctrl.to_name, labels=tuple(labels), shown=tuple(shown),
                            kind=family)
    return generic_spec(labels=labels, fields=fields, family=family, name=name, guidelines=guidelines,
                        shown=shown, titles=titles, question=ctrl.title or question, negative_label=labels[0],
                        label_field=label_field, binding=binding, image_fields=images, option_orders=option_orders,
                        calibration=calibration)


def control_spec(ctrl: ConfigControl, ctx: SpecContext) -> "TaskSpec":
    """A ``<Rating>``'s spec (its builder in :mod:`backend.controls.rating`; the element says it all: ``ctx.root``
    unread); ValueError with the reason."""
    labels = rating_labels(ctrl.get("maxRating"), name=ctrl.name)
    return scale_spec(ctrl, ctx.inputs, labels=labels, family="rating", name=ctx.name, guidelines=ctx.guidelines,
                      question=f"How many stars, from 1 to {labels[-1]}, does this item deserve?",
                      label_field=ctx.label_field, titles=ctx.titles, option_orders=ctx.option_orders,
                      calibration=ctx.calibration)


def scalar_result(spec: "TaskSpec", value: str, *, kind: str) -> list[dict[str, Any]]:
    """The ``result`` list setting the spec's ``rating`` / ``number`` control to ``value``."""
    binding = spec.binding
    number = float(value)
    return [{
        "value": {kind: int(number) if number.is_integer() else number},
        "from_name": binding.from_name if binding else kind,
        "to_name": binding.to_name if binding else "text",
        "type": kind,
    }]


@register_family
class RatingFamily(OrdinalFamily):
    """1..maxRating stars; ordinal in every respect but the result it reads and writes."""

    name = "rating"
    builtin_specs = False
    confident_learning = False  # a <Rating> or <Number> is judged from its control, not learnt as text classes
    result_kind = "rating"

    def check_spec(self, spec: "TaskSpec") -> None:
        if not spec.numeric_labels:
            raise ValueError(f"a {self.name} control's labels are numbers, got {list(spec.labels)}")

    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """The grade of the control's region; None without one; ValueError for a grade that is not on the scale
        (0 or 6 of five stars, 4.5, ``null``, ``true``, text) or two regions with different grades."""
        control = spec.binding.from_name if spec.binding else ""
        if not control:
            return None
        return control_answer(result, control=control, kind=self.result_kind, key=self.result_kind,
                              labels=spec.labels, read=lambda raw: self._grade(spec, raw))

    def _grade(self, spec: "TaskSpec", raw: Any) -> str | None:
        """A number on the scale (a numeric text too, as a file's label); anything else None."""
        if raw is None or isinstance(raw, (bool, list, dict)):
            return None
        return self.normalize_label(spec, raw)

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        return scalar_result(spec, value, kind=self.result_kind)

    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        return f"{value} of {spec.labels[-1]}"
