"""A ratings file (CSV, TSV or JSONL, long or wide) read into the statistics' ratings table."""

from __future__ import annotations

from pathlib import Path

from stats_cli.sources.rows import FileFormat, read_rows
from stats_cli.stats.ratings import RatingsTable, ratings_from_long, ratings_from_wide

__all__ = ["read_ratings"]


def read_ratings(
    path: str | Path,
    *,
    wide: bool = False,
    fmt: FileFormat | None = None,
    item_col: str = "item",
    annotator_col: str = "annotator",
    label_col: str = "label",
    numeric_only: bool = False,
) -> RatingsTable:
    """Read a long or wide ratings file (CSV, TSV or JSONL) into a :class:`RatingsTable`."""
    parsed = read_rows(path, fmt=fmt)
    if wide:
        return ratings_from_wide(parsed.rows, columns=parsed.columns, item_col=item_col, errors=parsed.errors,
                                 numeric_only=numeric_only)
    return ratings_from_long(
        parsed.rows, item_col=item_col, annotator_col=annotator_col, label_col=label_col, errors=parsed.errors,
        numeric_only=numeric_only,
    )
