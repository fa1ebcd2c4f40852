"""How a cell prints: one place, so table, Markdown and HTML never disagree on a number."""

from __future__ import annotations

from .model import Cell, Section, Status, Table

MISSING = "—"


def format_cell(value: Cell, *, kind: str = "") -> str:
    """Integers as is, percentages to one decimal, counts whole, other floats to 3 decimals, missing as "—"."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if kind == "percent":
            return f"{value:.1f}"
        if kind == "count":
            return f"{value:.0f}"
        return f"{value:.3f}"
    return str(value)


def percent(share: float | None) -> float | None:
    """A share (0-1) as the percent a "%" column prints; the sections' JSON values keep shares."""
    return None if share is None else 100.0 * share


def _is_percent_header(name: str) -> bool:
    return name.startswith("%") or "(%)" in name or name.endswith("in %")


def cell_kind(table: Table, row: tuple, column: int) -> str:
    """``percent`` / ``count`` / ``""``: a row named "... (%)" or "(count)" wins, else the column's header says."""
    label = row[0] if row and isinstance(row[0], str) else ""
    if column > 0 and "(count)" in label:
        return "count"
    if column > 0 and "(%)" in label:
        return "percent"
    return "percent" if _is_percent_header(table.columns[column]) else ""


def format_row(table: Table, row: tuple) -> list[str]:
    """Every cell of ``row`` formatted for its column and row (one rule for terminal, Markdown and HTML)."""
    return [format_cell(c, kind=cell_kind(table, row, j)) for j, c in enumerate(row)]


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


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 item``, ``2 items`` (``many`` for irregular plurals): notes read as a person writes them."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def are(n: int) -> str:
    return "is" if n == 1 else "are"
