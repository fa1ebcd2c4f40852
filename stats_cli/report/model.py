"""The report as data: sections with their sample sizes and honest "pending" / "not applicable" states.

Renderers (table, JSON, Markdown, HTML) only lay out this structure; they never compute. Keeping the
numbers in one typed tree is what lets every format say the same thing, and lets a section say *why*
it has no number instead of printing a zero or a NaN that a reader would take for a result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping, Sequence

Cell = str | int | float | None


class Status(str, Enum):
    """What a section can honestly say right now."""

    OK = "ok"
    PENDING = "pending"  # the data will exist once review / scoring progresses
    NOT_APPLICABLE = "not applicable"  # this project cannot have it (e.g. one annotator per task)


@dataclass(frozen=True)
class Table:
    """A titled grid; ``None`` cells render as an em dash, never as 0."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def __post_init__(self) -> None:
        if not self.columns:
            raise ValueError("a table needs at least one column")
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.title!r}: row {row!r} has {len(row)} cells, expected {len(self.columns)}")

    @classmethod
    def build(cls, title: str, columns: Sequence[str], rows: Sequence[Sequence[Cell]]) -> "Table":
        return cls(title, tuple(columns), tuple(tuple(_clean(c) for c in r) for r in rows))


@dataclass(frozen=True)
class Series:
    """One line or bar group of a plot: x labels/values, y values and optional CI bounds."""

    name: str
    x: tuple[Any, ...]
    y: tuple[float | None, ...]
    low: tuple[float | None, ...] | None = None
    high: tuple[float | None, ...] | None = None

    def __post_init__(self) -> None:
        n = len(self.x)
        if len(self.y) != n or (self.low is not None and len(self.low) != n) or (self.high is not None and len(self.high) != n):
            raise ValueError(f"series {self.name!r}: x, y and bounds must have the same length")


@dataclass(frozen=True)
class Figure:
    """A plot description (``kind`` is ``"bars"`` or ``"line"``); HTML draws it with matplotlib."""

    key: str
    title: str
    kind: str
    series: tuple[Series, ...]
    xlabel: str = ""
    ylabel: str = ""
    reference: tuple[tuple[float, float], ...] = ()  # e.g. the diagonal of a reliability curve

    def __post_init__(self) -> None:
        if self.kind not in ("bars", "line"):
            raise ValueError(f"figure kind must be 'bars' or 'line', not {self.kind!r}")


@dataclass(frozen=True)
class Thumbnail:
    """One picture of a grid: ``png`` (None when the image could not be had, and ``reason`` says why)."""

    item: str
    caption: str
    png: bytes | None = field(default=None, repr=False)
    reason: str = ""

    def __post_init__(self) -> None:
        if self.png is None and not self.reason:
            raise ValueError(f"thumbnail of {self.item!r} has no image: say why in `reason`")


@dataclass(frozen=True)
class Section:
    """One part of the report.

    ``sizes`` holds the sample sizes behind the numbers (always shown); ``reason`` says why a
    section is pending or not applicable; ``values`` carries the headline numbers for JSON readers.
    """

    key: str
    title: str
    status: Status
    sizes: Mapping[str, int] = field(default_factory=dict)
    reason: str = ""
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    values: Mapping[str, Any] = field(default_factory=dict)
    gallery: tuple[Thumbnail, ...] = ()  # a grid of pictures (HTML only; the other formats say where it is)
    #: The control the section is about, in a project with several (its name; ``""``: the whole project).
    control: str = ""
    #: How the report names that control (its title and name); the heading shows it after the title.
    control_label: str = ""

    def __post_init__(self) -> None:
        if not self.key or not self.title:
            raise ValueError("a section needs a key and a title")
        if self.status is not Status.OK and not self.reason:
            raise ValueError(f"section {self.key!r} is {self.status.value}: say why in `reason`")

    @property
    def heading(self) -> str:
        """The title, and the control it is about when the project has several."""
        return f"{self.title} — {self.control_label or self.control}" if self.control else self.title


def pending(key: str, title: str, reason: str, *, sizes: Mapping[str, int] | None = None) -> Section:
    """A section waiting for data that will come (review not done, no gold yet)."""
    return Section(key, title, Status.PENDING, sizes=dict(sizes or {}), reason=reason)


def not_applicable(key: str, title: str, reason: str, *, sizes: Mapping[str, int] | None = None) -> Section:
    """A section this project cannot have (e.g. a single annotator per task)."""
    return Section(key, title, Status.NOT_APPLICABLE, sizes=dict(sizes or {}), reason=reason)


@dataclass(frozen=True)
class Report:
    """Everything `audit-stats report` prints, in order."""

    project: str
    generated_at: str
    sections: tuple[Section, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def section(self, key: str, *, control: str = "") -> Section:
        """The section ``key`` (of ``control`` in a project with several controls)."""
        for sec in self.sections:
            if sec.key == key and sec.control == control:
                return sec
        raise KeyError(f"{key} of control {control!r}" if control else key)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: NaN and infinities become null so every reader can parse it."""
        return {
            "project": self.project,
            "generated_at": self.generated_at,
            "meta": _jsonable(dict(self.meta)),
            "sections": [_section_json(s) for s in self.sections],
        }


def _section_json(sec: Section) -> dict[str, Any]:
    return {
        "key": sec.key,
        "title": sec.title,
        **({"control": sec.control} if sec.control else {}),
        "status": sec.status.value,
        "reason": sec.reason,
        "sizes": dict(sec.sizes),
        "values": _jsonable(dict(sec.values)),
        "notes": list(sec.notes),
        "tables": [{"title": t.title, "columns": list(t.columns), "rows": [list(r) for r in t.rows]} for t in sec.tables],
        "figures": [
            {
                "key": f.key,
                "title": f.title,
                "kind": f.kind,
                "xlabel": f.xlabel,
                "ylabel": f.ylabel,
                "series": [_jsonable({"name": s.name, "x": list(s.x), "y": list(s.y),
                                      "low": list(s.low) if s.low else None,
                                      "high": list(s.high) if s.high else None}) for s in f.series],
            }
            for f in sec.figures
        ],
        **({"gallery": [{"item": t.item, "caption": t.caption, "available": t.png is not None, "reason": t.reason}
                        for t in sec.gallery]} if sec.gallery else {}),
    }


def _clean(value: Any) -> Cell:
    if value is None or isinstance(value, (str, int)) and not isinstance(value, bool):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return None if not math.isfinite(number) else number


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return number if math.isfinite(number) else None
