"""A statistic that may be undefined, with the reason it is.

κ is undefined when every rater chose one category, α when nothing is pairable, and so on. Printing
NaN hides that; crashing loses the other numbers. Every statistic here returns a
:class:`Coefficient` that is either a finite value or ``None`` plus a human-readable reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Coefficient", "defined", "undefined"]


@dataclass(frozen=True)
class Coefficient:
    """``value`` is a finite float, or None with ``reason`` saying why it is undefined."""

    value: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"non-finite value {self.value!r}: use undefined(reason) instead")
        if self.value is None and not self.reason:
            raise ValueError("an undefined coefficient needs a reason")

    @property
    def is_defined(self) -> bool:
        return self.value is not None

    def to_json(self) -> float | None:
        return self.value

    def format(self, digits: int = 3) -> str:
        return f"{self.value:.{digits}f}" if self.value is not None else "undefined"


def defined(value: Any, *, reason_if_nan: str = "not a finite number") -> Coefficient:
    """Wrap a number; NaN or infinity becomes an undefined coefficient with ``reason_if_nan``."""
    number = float(value)
    if not math.isfinite(number):
        return Coefficient(None, reason_if_nan)
    return Coefficient(number)


def undefined(reason: str) -> Coefficient:
    """An undefined statistic and why."""
    return Coefficient(None, reason)
