"""Pull named columns out of parsed rows, turning each unusable row into a line-numbered error.

``stratify``, ``confidence-bins`` and ``rerank`` read per-item files whose column names vary
(ItemResult JSON from ``label-audit score``, CSV exports, …). This module extracts the fields one
command needs and records why a row was skipped instead of raising.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from stats_cli.stats.labels import normalize_label
from stats_cli.sources.rows import Row, RowError

__all__ = ["as_label", "as_float", "as_probability", "extract", "score_for"]


def as_label(value: Any) -> str:
    """A required label; ``ValueError`` when blank."""
    label = normalize_label(value)
    if label is None:
        raise ValueError("is blank")
    return label


def as_float(value: Any) -> float:
    """A required finite number; ``ValueError`` otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError("is blank")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"is not a number ({value!r})") from None
    if not math.isfinite(number):
        raise ValueError(f"is not finite ({value!r})")
    return number


def as_probability(value: Any) -> float:
    """A number in [0, 1]."""
    number = as_float(value)
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"is outside [0, 1] ({number})")
    return number


def score_for(data: Mapping[str, Any], positive: str, *, score_col: str) -> float:
    """The probability of ``positive`` for one item.

    Uses ``score_col`` when present; else ItemResult's ``probs`` map; else ``confidence`` with
    ``prediction`` (binary: confidence of the predicted label, 1 − it otherwise).
    """
    if data.get(score_col) not in (None, ""):
        return as_probability(data[score_col])
    probs = data.get("probs")
    if isinstance(probs, Mapping) and probs:
        by_label = {normalize_label(k): v for k, v in probs.items()}
        if positive in by_label:
            return as_probability(by_label[positive])
        raise ValueError(f"probs has no entry for the positive label {positive!r}")
    if data.get("confidence") not in (None, "") and data.get("prediction") not in (None, ""):
        confidence = as_probability(data["confidence"])
        return confidence if normalize_label(data["prediction"]) == positive else 1.0 - confidence
    raise ValueError(f"no {score_col!r}, 'probs' or 'confidence'+'prediction' to score with")


def extract(
    rows: Sequence[Row], fields: Mapping[str, tuple[str, Callable[[Any], Any]]], errors: list[RowError],
    *, derived: Mapping[str, Callable[[Mapping[str, Any]], Any]] | None = None,
) -> tuple[dict[str, list[Any]], list[int]]:
    """Columns of the good rows: ``fields`` maps an output name to (column, converter).

    A missing column or a converter's ``ValueError`` skips the row with an error naming the
    column and line. ``derived`` values are computed from the whole row the same way.
    Returns the columns and the line numbers of the kept rows.
    """
    out: dict[str, list[Any]] = {name: [] for name in [*fields, *(derived or {})]}
    lines: list[int] = []
    for row in rows:
        values: dict[str, Any] = {}
        try:
            for name, (column, convert) in fields.items():
                if column not in row.data:
                    raise ValueError(f"missing column {column!r}")
                try:
                    values[name] = convert(row.data[column])
                except ValueError as exc:
                    raise ValueError(f"{column!r} {exc}") from None
            for name, compute in (derived or {}).items():
                try:
                    values[name] = compute(row.data)
                except ValueError as exc:
                    raise ValueError(f"{name}: {exc}") from None
        except ValueError as exc:
            errors.append(RowError(row.line, str(exc)))
            continue
        for name, value in values.items():
            out[name].append(value)
        lines.append(row.line)
    return out, lines
