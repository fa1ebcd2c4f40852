"""Read CSV, TSV or JSONL files into records that remember their line numbers.

Every offline command reads a file of rows; a malformed row must be reported with its line number
and skipped, never crash the run or vanish silently. The reading itself is the shared
:class:`backend.common.records.RecordReader` (the same reader `label-audit score` uses); this module keeps the
offline commands' shapes: all rows at once, errors as messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.api import FileFormat, Record, RecordProblem, RecordReader, detect_format
from stats_cli.stats.row_error import RowError

__all__ = ["RowError", "Row", "RowsFile", "read_rows", "detect_format", "FileFormat"]

Row = Record



@dataclass
class RowsFile:
    """All good rows of a file, the bad ones as errors, and the column names seen."""

    rows: list[Row]
    errors: list[RowError]
    columns: list[str]


def row_error(problem: RecordProblem) -> RowError:
    """The offline commands' message for a reader problem (its reason and detail)."""
    if problem.reason == "invalid_json":
        return RowError(problem.line, f"invalid JSON ({problem.detail})")
    return RowError(problem.line, problem.detail)


def read_rows(path: str | Path, *, fmt: FileFormat | None = None) -> RowsFile:
    """Read every row of ``path``; malformed rows become :class:`RowError` entries.

    Parameters
    ----------
    path : file to read (UTF-8; a BOM is accepted).
    fmt : ``"csv"``, ``"tsv"`` or ``"jsonl"``; guessed from the suffix when None.
    """
    reader = RecordReader(Path(path), fmt=fmt, short_rows="error")
    rows: list[Row] = []
    errors: list[RowError] = []
    for record in reader:
        if isinstance(record, RecordProblem):
            errors.append(row_error(record))
        else:
            rows.append(record)
    return RowsFile(rows, errors, list(reader.columns))
