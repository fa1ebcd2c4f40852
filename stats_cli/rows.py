"""Read CSV, TSV or JSONL files into records that remember their line numbers.

Every offline command reads a file of rows; a malformed row must be reported with its line number
and skipped, never crash the run or vanish silently. This module is the one place that does that.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Literal

__all__ = ["RowError", "Row", "RowsFile", "read_rows", "detect_format"]

FileFormat = Literal["csv", "tsv", "jsonl"]


@dataclass(frozen=True)
class RowError:
    """One skipped input row: 1-based ``line`` in the file (0 when not tied to a line)."""

    line: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class Row:
    """One parsed record and the 1-based line it started on."""

    line: int
    data: dict[str, Any]


@dataclass
class RowsFile:
    """All good rows of a file, the bad ones as errors, and the column names seen."""

    rows: list[Row]
    errors: list[RowError]
    columns: list[str]


def detect_format(path: Path) -> FileFormat:
    """Pick the format from the file name: ``.tsv``/``.tab`` → tsv, ``.jsonl``/``.ndjson``/``.json`` → jsonl, else csv."""
    suffixes = [s.lower() for s in path.suffixes]
    last = suffixes[-1] if suffixes else ""
    if last == ".gz" and len(suffixes) > 1:
        last = suffixes[-2]
    if last in {".tsv", ".tab"}:
        return "tsv"
    if last in {".jsonl", ".ndjson", ".json"}:
        return "jsonl"
    return "csv"


def read_rows(path: str | Path, *, fmt: FileFormat | None = None) -> RowsFile:
    """Read every row of ``path``; malformed rows become :class:`RowError` entries.

    Parameters
    ----------
    path : file to read (UTF-8; a BOM is accepted).
    fmt : ``"csv"``, ``"tsv"`` or ``"jsonl"``; guessed from the suffix when None.
    """
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt not in ("csv", "tsv", "jsonl"):
        raise ValueError(f"unknown format {fmt!r}; use csv, tsv or jsonl")
    with path.open("r", encoding="utf-8-sig", newline="") as handle:
        if fmt == "jsonl":
            return _read_jsonl(handle)
        return _read_delimited(handle, delimiter="\t" if fmt == "tsv" else ",")


def _read_jsonl(handle: Any) -> RowsFile:
    rows: list[Row] = []
    errors: list[RowError] = []
    columns: dict[str, None] = {}
    for number, text in enumerate(handle, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            errors.append(RowError(number, f"invalid JSON ({exc.msg})"))
            continue
        if not isinstance(data, dict):
            errors.append(RowError(number, f"expected a JSON object, got {type(data).__name__}"))
            continue
        columns.update(dict.fromkeys(data))
        rows.append(Row(number, data))
    return RowsFile(rows, errors, list(columns))


def _read_delimited(handle: Any, *, delimiter: str) -> RowsFile:
    reader = csv.reader(handle, delimiter=delimiter)
    rows: list[Row] = []
    errors: list[RowError] = []
    header: list[str] | None = None
    for record in _records(reader, errors, handle):
        line, values = record
        if header is None:
            if not any(v.strip() for v in values):
                continue
            header = [v.strip() for v in values]
            continue
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            errors.append(RowError(line, f"expected {len(header)} fields, got {len(values)}"))
            continue
        rows.append(Row(line, dict(zip(header, values))))
    return RowsFile(rows, errors, header or [])


def _records(reader: Any, errors: list[RowError], handle: Any) -> Iterator[tuple[int, list[str]]]:
    """Yield (first line of the record, fields); a csv error ends the file with one RowError.

    The last record is held back one step: a quote that is never closed makes the (lenient) csv
    reader swallow every following line into one field, which must be reported, not kept.
    """
    line = 1
    held: tuple[int, list[str]] | None = None
    end = 0
    while True:
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if held is not None:
                yield held
            errors.append(RowError(reader.line_num, f"unreadable row ({exc}); rest of file skipped"))
            return
        if held is not None:
            yield held
        held, end = (line, values), reader.line_num
        line = reader.line_num + 1
    if held is None:
        return
    if end > held[0] and _unterminated_quote(handle, held[0], reader.dialect.delimiter):
        errors.append(RowError(held[0], "unterminated quote: the rest of the file would be one field; "
                                        "row and rest of file skipped"))
        return
    yield held


def _unterminated_quote(handle: Any, start: int, delimiter: str) -> bool:
    """True when the text from line ``start`` to the end of the file ends inside a quoted field."""
    handle.seek(0)
    tail = "".join(itertools.islice(handle, start - 1, None))
    try:
        for _ in csv.reader(io.StringIO(tail), delimiter=delimiter, strict=True):
            pass
    except csv.Error as exc:
        return "unexpected end of data" in str(exc)
    return False
