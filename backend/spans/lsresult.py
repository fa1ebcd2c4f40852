"""Label Studio ``labels`` results <-> :class:`Span`: the one place offsets cross the boundary.

A region is ``{"from_name", "to_name", "type": "labels", "value": {"start", "end", "text", "labels"}}``.
Reading never raises on a bad region: it is skipped and described in the returned problems, so one
bad annotation cannot stop the batch it came in (house rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from backend.spans.model import Span
from backend.spans.offsets import resolve_offsets


@dataclass(frozen=True)
class ReadSpans:
    """The spans of one annotation, the regions refused (with why), and how many were UTF-16."""

    spans: tuple[Span, ...]
    problems: tuple[str, ...] = ()
    converted_utf16: int = 0
    regions: tuple[str, ...] = field(default=(), repr=False)


def _as_dict(region: Any) -> Mapping[str, Any]:
    if isinstance(region, Mapping):
        return region
    dumped = getattr(region, "model_dump", None)
    return dumped() if callable(dumped) else getattr(region, "__dict__", {})


def read_spans(result: Iterable[Any] | None, text: str, *, control: str,
               labels: Sequence[str] | None = None) -> ReadSpans:
    """The spans ``control`` (a ``<Labels>`` name) marked in one annotation or prediction result.

    ``labels``, when given, is the project's entity types: a region naming another type is refused.
    A region with several labels gives one span per label.
    """
    spans: list[Span] = []
    problems: list[str] = []
    converted = 0
    for region in result or ():
        item = _as_dict(region)
        if item.get("from_name") != control or item.get("type") != "labels":
            continue
        value = item.get("value")
        if not isinstance(value, Mapping):
            problems.append("a labels region without a value object")
            continue
        try:
            start, end = int(value["start"]), int(value["end"])
        except (KeyError, TypeError, ValueError):
            problems.append(f"a labels region without integer start/end: {dict(value)!r:.120}")
            continue
        expected = value.get("text")
        resolved = resolve_offsets(text, start, end, None if expected is None else str(expected))
        if resolved is None:
            problems.append(f"region [{start}, {end}) does not select its text {expected!r:.60} in the task text")
            continue
        cp_start, cp_end, how = resolved
        converted += how == "utf16"
        names = value.get("labels")
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, (list, tuple)) or not names:
            problems.append(f"region [{start}, {end}) has no label")
            continue
        for name in names:
            if labels is not None and str(name) not in labels:
                problems.append(f"region [{start}, {end}) has label {name!r}, not one of the project's")
                continue
            spans.append(Span(cp_start, cp_end, str(name), text[cp_start:cp_end]))
    return ReadSpans(spans=tuple(sorted(set(spans))), problems=tuple(problems), converted_utf16=converted)


def span_region(span: Span, *, control: str, to_name: str, region_id: str | None = None,
                score: float | None = None) -> dict[str, Any]:
    """One Label Studio ``labels`` region for ``span`` (offsets as Label Studio 1.23.2 counts them)."""
    region: dict[str, Any] = {
        "from_name": control,
        "to_name": to_name,
        "type": "labels",
        "value": {"start": span.start, "end": span.end, "text": span.text, "labels": [span.label]},
    }
    if region_id is not None:
        region["id"] = region_id
    if score is not None:
        region["score"] = float(score)
    return region


def read_spans_unchecked(result: Iterable[Any] | None, *, control: str,
                         labels: Sequence[str] | None = None) -> tuple[Span, ...]:
    """The spans of a result as stored, before the task's text is at hand (offsets checked later by
    :func:`backend.spans.value.checked_spans`); malformed regions are skipped."""
    spans: set[Span] = set()
    for region in result or ():
        item = _as_dict(region)
        value = item.get("value")
        if item.get("from_name") != control or item.get("type") != "labels" or not isinstance(value, Mapping):
            continue
        names = value.get("labels")
        names = [names] if isinstance(names, str) else names
        try:
            start, end, text = int(value["start"]), int(value["end"]), str(value.get("text") or "")
            for name in names or ():
                if labels is None or str(name) in labels:
                    spans.add(Span(start, end, str(name), text if len(text) == end - start else ""))
        except (KeyError, TypeError, ValueError):
            continue
    return tuple(sorted(spans))
