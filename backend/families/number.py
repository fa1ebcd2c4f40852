"""A small integer scale typed in a ``<Number min max step>``: ordinal, read from a ``number`` result.

A ``<Number>`` whose range holds a few integers (a 0-10 score) is a grade like a rating; each value is
one lettered option for the judges, so a range of more than 26 values is refused with that reason
(:func:`number_labels`). A person's submission reads back as ``{"type": "number", "value": {"number": 7}}``
(docs/controls.md).

The config's attributes are the project's text, not trusted: the scale is *counted* from them before a
single value is built (``max="1e300"`` once built a list of 10^300 integers and took the backend down), so
every attribute that makes no small integer scale, however large, is a ``ValueError`` with the reason.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.task.generic import MAX_CLASSES
from backend.task.family import register_family
from backend.controls.control_type import SpecContext
from backend.controls.element import ConfigControl
from backend.families.rating import RatingFamily, scale_spec

if TYPE_CHECKING:
    from backend.task.spec import TaskSpec

__all__ = ["MAX_LABEL_CHARS", "NumberFamily", "control_spec", "number_labels"]

#: A label is stored whole in the ledger's label columns (original, prediction, crowd label).
MAX_LABEL_CHARS = STORE_COLUMN_CHARS


def _integer(text: str, what: str, name: str) -> int:
    """One attribute as an exact integer; ValueError with the reason (not a number, not finite, a fraction,
    more digits than a stored label holds). Decimal, not float: ``1e300`` is read without rounding and its
    size is known (``adjusted()``) before any integer is made of it."""
    try:
        number = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        raise ValueError(f"<Number name={name!r}>: {what}={text!r} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"<Number name={name!r}>: {what}={text!r} is not a finite number")
    if number != 0 and number.adjusted() >= MAX_LABEL_CHARS:
        raise ValueError(f"<Number name={name!r}>: {what}={text!r} has more than {MAX_LABEL_CHARS} digits, more "
                         f"than the {MAX_LABEL_CHARS} characters the ledger stores per label")
    if number != number.to_integral_value():
        raise ValueError(f"<Number name={name!r}>: {what}={text!r} is not an integer: only an integer scale "
                         "(integer min, max and a positive integer step) can be judged")
    return int(number)


def number_labels(*, minimum: str | None, maximum: str | None, step: str | None, name: str) -> tuple[str, ...]:
    """The values a ``<Number>`` allows, as labels; ValueError (the reason) when it is no small integer scale.

    The number of values is computed from ``min``, ``max`` and ``step`` first; the labels are built only for a
    scale of at most 26 values whose every label fits the ledger.
    """
    if minimum is None or maximum is None:
        raise ValueError(f"<Number name={name!r}> has no min and max: an unbounded number cannot be judged as a "
                         "scale of options")
    low, high = _integer(minimum, "min", name), _integer(maximum, "max", name)
    by = _integer(step, "step", name) if step is not None and step.strip() else 1
    if by <= 0:
        raise ValueError(f"<Number name={name!r}>: step={step!r} is not positive: only an integer scale (integer "
                         "min, max and a positive integer step) can be judged")
    count = (high - low) // by + 1 if high >= low else 0
    if count < 2:
        raise ValueError(f"<Number name={name!r}> allows fewer than two values")
    if count > MAX_CLASSES:
        spans = count if count < 10 ** 9 else f"over 10^{len(str(count)) - 1}"
        raise ValueError(f"<Number name={name!r}> spans {spans} values: the judges answer with one letter per "
                         f"value, at most {MAX_CLASSES} (narrow the range or raise the step)")
    labels = tuple(str(low + i * by) for i in range(count))
    longest = max(labels, key=len)
    if len(longest) > MAX_LABEL_CHARS:
        raise ValueError(f"<Number name={name!r}>: the value {longest[:20]}... takes {len(longest)} characters, more "
                         f"than the {MAX_LABEL_CHARS} the ledger stores per label")
    return labels


def control_spec(ctrl: ConfigControl, ctx: SpecContext) -> "TaskSpec":
    """A ``<Number>``'s spec (its builder in :mod:`backend.controls.number`; the element says it all: ``ctx.root``
    unread); ValueError with the reason."""
    labels = number_labels(minimum=ctrl.get("min"), maximum=ctrl.get("max"), step=ctrl.get("step"), name=ctrl.name)
    return scale_spec(ctrl, ctx.inputs, labels=labels, family="number", name=ctx.name, guidelines=ctx.guidelines,
                      question=f"Which number from {labels[0]} to {labels[-1]} does this item deserve?",
                      label_field=ctx.label_field, titles=ctx.titles, option_orders=ctx.option_orders,
                      calibration=ctx.calibration)


@register_family
class NumberFamily(RatingFamily):
    """An integer scale from a ``<Number>``; ordinal, like a rating."""

    name = "number"
    result_kind = "number"

    def show_answer(self, spec, value: str) -> str:  # type: ignore[no-untyped-def]
        return value
