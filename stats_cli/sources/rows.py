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

__all__ = ["RowError", "Row", "RowsFile", "read_rows", "detect_format", "FileFormat"]

Row = Record



@dataclass(frozen=True)
class RowError:
    """One skipped input row: 1-based ``line`` in the file (0 when not tied to a line)."""

    line: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


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
