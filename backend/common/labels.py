"""Labels: the one normaliser, the one natural order and the one tie rule of ``label-audit`` and ``audit-stats``.

Annotation files mix strings and numbers ("1", "1.0", 1, "yes"). Treating "1" and "1.0" as two
categories, or sorting "10" before "9", silently corrupts ordinal statistics, so every module
orders and compares labels through these functions (the task spec maps them into its label set).

Tie rule (one, documented, deterministic, independent of annotation order): when several labels are
tied, the task's *negative* label wins if it is among them (a doubtful item is not promoted to the
positive class), otherwise the first tied label in class order (natural label order when no class
order is given). It decides majority ties and, for an ordinal task with an even number of annotations
whose two middle values differ, the median: e.g. ratings 2, 2, 4, 5 on a 1-5 scale have median 2 (not
3 and not 2.5), because the lower middle comes first in class order.

Original label of a task with several annotations: binary (and nominal) tasks take the majority,
ordinal tasks the median (Nahum et al. 2024, App. A: SummEval's crowd ratings "aggregated by their
median"), in the Label Studio backend and in the report's crowd section alike.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable, Sequence

__all__ = ["label_problem", "normalize_label", "label_sort_key", "sort_labels", "is_number", "labels_are_numeric",
           "label_value", "break_tie",
           "majority_label", "median_label", "original_label"]


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


_INFINITE_TEXT = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


def label_problem(raw: Any) -> str | None:
    """Why ``raw`` cannot be a label (None when it can, or when it is simply missing).

    Lists and objects, text holding a NUL byte, and infinite or NaN numbers (JSON's non-standard
    ``Infinity``/``NaN`` tokens, ``"-inf"``) are not categories: readers reject such a row with this
    reason instead of counting a new label. Blank text and the words ``nan``/``na``/``null``/``none``
    stay *missing* ratings (see :func:`normalize_label`).
    """
    if isinstance(raw, (list, tuple)):
        return "is a list, not a label"
    if isinstance(raw, dict):
        return "is an object, not a label"
    if isinstance(raw, float) and not math.isfinite(raw):
        return f"is not a finite number ({raw!r})"
    if isinstance(raw, str):
        if "\x00" in raw:
            return "contains a NUL byte"
        if raw.strip().lower() in _INFINITE_TEXT:
            return f"is not a finite number ({raw.strip()!r})"
    return None


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


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a finite number: the one test for numeric labels (they order an ordinal
    scale) and numeric CSV cells (they stay numbers). NaN and infinities are not numbers here."""
    return _as_number(text) is not None


def labels_are_numeric(labels: Iterable[str]) -> bool:
    """True when every (normalised) label parses as a finite number."""
    return all(is_number(label) for label in labels)


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


def break_tie(tied: Iterable[str], *, negative: str | None = None, order: Sequence[str] | None = None) -> str:
    """The winner among tied labels (see the module's tie rule); ``order`` is the class order."""
    candidates = list(tied)
    if not candidates:
        raise ValueError("break_tie needs at least one label")
    if negative is not None and negative in candidates:
        return negative
    if order is not None and all(label in order for label in candidates):
        return min(candidates, key=list(order).index)
    return min(candidates, key=label_sort_key)


def majority_label(labels: Iterable[str | None], *, negative: str | None = None,
                   order: Sequence[str] | None = None) -> str | None:
    """The most frequent label (ties by :func:`break_tie`); None when nobody labelled."""
    counts = Counter(label for label in labels if label is not None)
    if not counts:
        return None
    top = max(counts.values())
    return break_tie([label for label, n in counts.items() if n == top], negative=negative, order=order)


def median_label(labels: Iterable[str | None], *, order: Sequence[str], negative: str | None = None) -> str | None:
    """The median of ordinal labels in class ``order``; two different middles go by :func:`break_tie`.

    Labels outside ``order`` (and None) are not ratings and are left out; None when none is left.
    """
    rank = {label: i for i, label in enumerate(order)}
    ranked = sorted((label for label in labels if label in rank), key=rank.__getitem__)
    if not ranked:
        return None
    low, high = ranked[(len(ranked) - 1) // 2], ranked[len(ranked) // 2]
    return low if low == high else break_tie([low, high], negative=negative, order=order)


def original_label(labels: Iterable[str | None], *, spec: Any) -> str | None:
    """One original label from several annotations, as the spec's family forms it.

    Single-choice: the median for ordinal tasks, else the majority; multi-label: per label, the majority.
    """
    return spec.task_family.original_label(spec, labels)
