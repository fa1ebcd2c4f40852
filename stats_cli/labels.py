"""Label normalisation and ordering shared by every statistic.

Annotation files mix strings and numbers ("1", "1.0", 1, "yes"). Treating "1" and "1.0" as two
categories, or sorting "10" before "9", silently corrupts ordinal statistics, so every module
orders and compares labels through these two functions.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

__all__ = ["normalize_label", "label_sort_key", "sort_labels", "labels_are_numeric", "label_value"]


def normalize_label(raw: Any) -> str | None:
    """Return the canonical text of one label, or None when the value counts as missing.

    Integral numbers lose their decimal part (``1.0`` and ``"1"`` both become ``"1"``); other
    numbers keep Python's shortest repr; strings are stripped. Blank strings, ``None`` and NaN
    are missing, not a category.
    """
    if raw is None:
        return None
    if isinstance(raw, bool):
        return "1" if raw else "0"
    if isinstance(raw, (int, float)):
        value = float(raw)
        if math.isnan(value):
            return None
        return _number_text(value)
    text = str(raw).strip()
    if not text or text.lower() in {"nan", "na", "n/a", "null", "none"}:
        return None
    number = _as_number(text)
    return _number_text(number) if number is not None else text


def _as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _number_text(value: float) -> str:
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def labels_are_numeric(labels: Iterable[str]) -> bool:
    """True when every (normalised) label parses as a finite number."""
    return all(_as_number(label) is not None for label in labels)


def label_value(label: str) -> float:
    """Numeric value of a normalised numeric label; ``ValueError`` for a non-numeric one."""
    number = _as_number(label)
    if number is None:
        raise ValueError(f"label {label!r} is not numeric")
    return number


def label_sort_key(label: str) -> tuple[int, float, str]:
    """Numbers first in numeric order ("9" < "10"), then strings in case-insensitive order."""
    number = _as_number(label)
    if number is not None:
        return (0, number, label)
    return (1, 0.0, label.casefold() + "\0" + label)


def sort_labels(labels: Iterable[str]) -> list[str]:
    """Distinct labels in natural order (see :func:`label_sort_key`)."""
    return sorted(set(labels), key=label_sort_key)
