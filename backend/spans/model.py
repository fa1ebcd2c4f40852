"""One labelled span: ``text[start:end]`` (Python code points, end exclusive) and its entity type.

Every other span module speaks this type, so offsets are converted once (at the Label Studio
boundary, :mod:`backend.spans.lsresult`) and compared exactly everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

NOT_AN_ENTITY = "not an entity"


@dataclass(frozen=True, order=True)
class Span:
    """A half-open interval ``[start, end)`` of a text, with its entity type.

    Parameters
    ----------
    start, end : int
        Code-point offsets, ``0 <= start < end``.
    label : str
        The entity type (a label of the project's ``<Labels>``).
    text : str
        ``text[start:end]`` of the item's text (kept so exports and reviews never recompute it).
    """

    start: int
    end: int
    label: str
    text: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.start, int) or not isinstance(self.end, int):
            raise ValueError(f"span offsets must be integers, got {self.start!r}, {self.end!r}")
        if not 0 <= self.start < self.end:
            raise ValueError(f"a span needs 0 <= start < end, got [{self.start}, {self.end})")
        if not self.label:
            raise ValueError("a span needs an entity type")
        if self.text and len(self.text) != self.end - self.start:
            raise ValueError(f"span text {self.text!r} does not have length {self.end - self.start}")

    @property
    def extent(self) -> tuple[int, int]:
        """``(start, end)``: what a boundary compares."""
        return (self.start, self.end)

    def overlaps(self, other: "Span | tuple[int, int]") -> bool:
        """True when the two intervals share at least one character."""
        start, end = other.extent if isinstance(other, Span) else other
        return self.start < end and start < self.end

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "label": self.label, "text": self.text}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Span":
        return cls(int(data["start"]), int(data["end"]), str(data["label"]), str(data.get("text") or ""))


def span_in(text: str, start: int, end: int, label: str) -> Span:
    """A span of ``text`` with its text filled in; ValueError when the offsets fall outside ``text``."""
    if end > len(text):
        raise ValueError(f"span [{start}, {end}) ends past the text ({len(text)} characters)")
    return Span(start, end, label, text[start:end])


def sorted_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """Spans in text order, duplicates (same extent and type) dropped."""
    return tuple(sorted(set(spans)))
