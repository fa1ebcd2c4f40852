"""Options and file loading shared by the offline commands (one place for column names and errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from backend.api import fail
from stats_cli.stats.ratings import RatingsTable
from stats_cli.sources.ratings_file import read_ratings
from stats_cli.sources.rows import Row, RowError, read_rows

__all__ = ["FileArg", "JsonOpt", "FormatOpt", "ItemCol", "AnnotatorCol", "LabelCol", "WideOpt", "OriginalCol",
           "GoldCol", "fail", "load_ratings", "load_rows"]

FileArg = Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="CSV, TSV or JSONL file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
FormatOpt = Annotated[Optional[str], typer.Option("--format", help="csv, tsv or jsonl (default: from the suffix).")]
ItemCol = Annotated[str, typer.Option("--item-col", help="Item id column.")]
AnnotatorCol = Annotated[str, typer.Option("--annotator-col", help="Annotator column (long format).")]
LabelCol = Annotated[str, typer.Option("--label-col", help="Label column (long format).")]
WideOpt = Annotated[bool, typer.Option("--wide", help="One row per item, one column per annotator; blanks = missing.")]
OriginalCol = Annotated[str, typer.Option("--original-col", help="Original label column.")]
GoldCol = Annotated[str, typer.Option("--gold-col", help="Expert (gold) label column.")]


def load_ratings(file: Path, *, wide: bool, fmt_: str | None, item_col: str, annotator_col: str, label_col: str,
                 numeric_only: bool = False) -> RatingsTable:
    """Read a ratings file; an unreadable file is a clean CLI error, bad rows stay in ``errors``."""
    try:
        return read_ratings(file, wide=wide, fmt=fmt_, item_col=item_col, annotator_col=annotator_col,  # type: ignore[arg-type]
                            label_col=label_col, numeric_only=numeric_only)
    except (ValueError, UnicodeDecodeError) as exc:
        raise fail(str(exc)) from None


def load_rows(file: Path, fmt_: str | None) -> tuple[list[Row], list[RowError]]:
    """Read a per-item file into rows and the errors of its malformed lines."""
    try:
        parsed = read_rows(file, fmt=fmt_)  # type: ignore[arg-type]
    except (ValueError, UnicodeDecodeError) as exc:
        raise fail(str(exc)) from None
    return parsed.rows, list(parsed.errors)


