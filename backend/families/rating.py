"""Star ratings (``<Rating maxRating="5">``): an ordinal scale 1..maxRating read from a ``rating`` result.

A rating is an ordered grade exactly as a 1-5 ``<Choices>`` is, so the family is the ordinal one (median
of annotators, ``|prediction - original| > delta`` flag rule, threshold 0.2); what differs is only how
Label Studio stores it. A person's submission on Label Studio 1.23.2 reads back as
``{"from_name": "rating", "to_name": "text", "type": "rating", "value": {"rating": 4}}`` (docs/controls.md);
the labels are the grades as strings (``"1"``..``"5"``), so the ledger and the review stores keep one
string per item as for any single-choice task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from backend.task.family import register_family
from backend.families.single import OrdinalFamily, region_values

if TYPE_CHECKING:
    from backend.task.spec import TaskSpec

__all__ = ["RatingFamily", "scalar_from_result", "scalar_result"]


def scalar_from_result(result: Sequence[Any] | None, *, control: str, kind: str) -> Any:
    """The value a ``rating`` / ``number`` region of ``control`` holds (``value[kind]``), or None.

    A malformed region counts as no answer: one bad annotation must not stop the batch it came in.
    """
    return next((v for v in region_values(result, control=control, kind=kind) if v is not None), None)


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
    result_kind = "rating"

    def check_spec(self, spec: "TaskSpec") -> None:
        if not spec.numeric_labels:
            raise ValueError(f"a {self.name} control's labels are numbers, got {list(spec.labels)}")

    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        control = spec.binding.from_name if spec.binding else ""
        raw = scalar_from_result(result, control=control, kind=self.result_kind) if control else None
        return None if raw is None or isinstance(raw, bool) else self.normalize_label(spec, raw)

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        return scalar_result(spec, value, kind=self.result_kind)

    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        return f"{value} of {spec.labels[-1]}"
