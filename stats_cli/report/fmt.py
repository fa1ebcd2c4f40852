"""How a cell prints: one place, so table, Markdown and HTML never disagree on a number."""

from __future__ import annotations

from .model import Cell, Section, Status

MISSING = "—"


def format_cell(value: Cell) -> str:
    """Integers as is, floats to 3 significant decimals, missing as an em dash (never 0)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def sizes_line(section: Section) -> str:
    """``n items = 40 · n reviewed = 12`` — sample sizes travel with every section."""
    if not section.sizes:
        return ""
    return " · ".join(f"{name} = {count}" for name, count in section.sizes.items())


def status_line(section: Section) -> str:
    """Empty for an OK section, else e.g. ``PENDING: 3 of 10 flagged items reviewed``."""
    if section.status is Status.OK:
        return ""
    return f"{section.status.value.upper()}: {section.reason}"


def data_notes(meta: dict) -> list[str]:
    """The snapshot line (reviews still open), then problems met while pulling: at the top of every format."""
    snapshot = [str(meta["snapshot"])] if meta.get("snapshot") else []
    return snapshot + [str(n) for n in meta.get("pull_notes") or ()]
