"""A small integer scale typed in a ``<Number min max step>``: ordinal, read from a ``number`` result.

A ``<Number>`` whose range holds a few integers (a 0-10 score) is a grade like a rating; each value is
one lettered option for the judges, so a range of more than 26 values is refused with that reason
(:func:`number_labels`). A person's submission reads back as ``{"type": "number", "value": {"number": 7}}``
(docs/controls.md).
"""

from __future__ import annotations

from backend.task.generic import MAX_CLASSES
from backend.task.family import register_family
from backend.families.rating import RatingFamily

__all__ = ["NumberFamily", "number_labels"]


def number_labels(*, minimum: str | None, maximum: str | None, step: str | None, name: str) -> tuple[str, ...]:
    """The values a ``<Number>`` allows, as labels; ValueError (the reason) when it is no small integer scale."""
    if minimum is None or maximum is None:
        raise ValueError(f"<Number name={name!r}> has no min and max: an unbounded number cannot be judged as a "
                         "scale of options")
    try:
        low, high, by = float(minimum), float(maximum), float(step or 1)
    except ValueError:
        raise ValueError(f"<Number name={name!r}>: min, max and step must be numbers") from None
    if not all(v.is_integer() for v in (low, high, by)) or by <= 0:
        raise ValueError(f"<Number name={name!r}>: only an integer scale (integer min, max and a positive integer "
                         "step) can be judged")
    values = list(range(int(low), int(high) + 1, int(by)))
    if len(values) < 2:
        raise ValueError(f"<Number name={name!r}> allows fewer than two values")
    if len(values) > MAX_CLASSES:
        raise ValueError(f"<Number name={name!r}> spans {len(values)} values: the judges answer with one letter per "
                         f"value, at most {MAX_CLASSES} (narrow the range or raise the step)")
    return tuple(str(v) for v in values)


@register_family
class NumberFamily(RatingFamily):
    """An integer scale from a ``<Number>``; ordinal, like a rating."""

    name = "number"
    result_kind = "number"

    def show_answer(self, spec, value: str) -> str:  # type: ignore[no-untyped-def]
        return value
