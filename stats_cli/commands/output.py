"""Terminal output for the offline commands: rich tables on stdout, skipped rows on stderr, or one JSON object.

Kept apart from the commands so every command reports bad rows the same way and ``--json``
always prints exactly one object on stdout (nothing else), which scripts can parse.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Iterable, Sequence

import typer
from rich.console import Console
from rich.table import Table

from backend.api import plain
from stats_cli.sources.rows import RowError

__all__ = ["stdout", "stderr", "fmt", "print_table", "print_errors", "print_json", "errors_json", "MAX_SHOWN_ERRORS",
           "EXIT_ROWS_SKIPPED", "exit_if_rows_skipped", "print_result"]

#: Exit code of a command that printed its result but skipped input rows (listed with line numbers).
EXIT_ROWS_SKIPPED = 3

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)
MAX_SHOWN_ERRORS = 20


def fmt(value: Any, digits: int = 3) -> str:
    """A cell: floats to ``digits`` places (scientific when tiny), None as 'undefined'."""
    if value is None:
        return "undefined"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != 0 and abs(value) < 10 ** -digits:
            return f"{value:.2e}"
        return f"{value:.{digits}f}"
    return str(value)


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str | None = None) -> None:
    """Print one rich table; numbers right-aligned."""
    table = Table(title=plain(title), caption=plain(caption) if caption else None, title_justify="left")
    rows = [list(r) for r in rows]
    for index, name in enumerate(columns):
        numeric = bool(rows) and all(isinstance(r[index], (int, float)) or r[index] is None for r in rows)
        table.add_column(plain(name), justify="right" if numeric else "left")
    for row in rows:
        table.add_row(*(plain(fmt(v)) for v in row))
    stdout.print(table)


def print_errors(errors: Sequence[RowError]) -> None:
    """Report skipped rows on stderr: the first few with line numbers, then a count."""
    if not errors:
        return
    for error in errors[:MAX_SHOWN_ERRORS]:
        stderr.print(f"[yellow]skipped[/] {plain(error)}", markup=True, highlight=False)
    if len(errors) > MAX_SHOWN_ERRORS:
        stderr.print(f"… and {len(errors) - MAX_SHOWN_ERRORS} more")
    stderr.print(f"{len(errors)} bad row(s) skipped")


def exit_if_rows_skipped(errors: Sequence[RowError]) -> None:
    """After the output: exit 3 when rows were skipped, so a script sees the result rests on part of the file."""
    if errors:
        raise typer.Exit(EXIT_ROWS_SKIPPED)


def errors_json(errors: Sequence[RowError]) -> dict[str, Any]:
    return {"n_skipped": len(errors), "errors": [e.to_json() for e in errors]}


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def print_json(payload: dict[str, Any]) -> None:
    """Exactly one JSON object on stdout; NaN/inf never leak (they become null)."""
    print(json.dumps(_clean(payload), ensure_ascii=False, allow_nan=False))


def print_result(errors: Sequence[RowError], *, json_out: bool, payload: Callable[[], dict[str, Any]],
                 tables: Callable[[], None], empty: bool = False) -> None:
    """How every offline command ends, so they all report the same way.

    ``--json``: one object, the skipped rows inside; otherwise the skipped rows on stderr, then the tables.
    Then exit 1 when there was nothing to compute (``empty``), else 3 when rows were skipped.
    """
    if json_out:
        print_json({**payload(), **errors_json(errors)})
    else:
        print_errors(errors)
        tables()
    if empty:
        raise typer.Exit(1)
    exit_if_rows_skipped(errors)
