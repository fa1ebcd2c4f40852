"""The one line-aware reader of record files (JSONL, CSV, TSV) for ``label-audit`` and ``audit-stats``.

Every command that reads a file of rows goes through :class:`RecordReader`: it yields a :class:`Record`
(a dict and the 1-based line it starts on) for every good row and a :class:`RecordProblem` (line, reason
code, detail) for every bad one, in file order, and never stops at a bad row. So one fix here reaches
both tools.

Rules
-----
- Bytes are decoded per row: an invalid UTF-8 byte makes that row ``unreadable`` (with its line), not
  the whole file. A UTF-8 BOM is accepted.
- JSONL: blank lines are skipped; a line that is not JSON (or that the parser refuses: an integer over
  4300 digits, nesting too deep) is ``invalid_json``; a JSON value that is not an object is
  ``not_an_object``. ``NaN``/``Infinity`` tokens parse as floats; callers judge values.
- CSV/TSV: the first non-blank row is the header (names stripped); blank rows are skipped; a row with
  more cells than columns is ``csv_error``; a shorter row is ``csv_error`` too unless ``short_rows=
  "partial"`` (its trailing columns are then absent). A field over the csv module's size limit is one
  ``csv_error`` and reading goes on with the next line; a quote that is never closed (it would swallow
  the rest of the file into one field) is one ``csv_error`` at the row where it opens.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Literal

__all__ = ["FileFormat", "Record", "RecordProblem", "RecordReader", "detect_format"]

FileFormat = Literal["csv", "tsv", "jsonl"]
FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl")
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Record:
    """One parsed row and the 1-based line it started on."""

    line: int
    data: dict[str, Any]


@dataclass(frozen=True)
class RecordProblem:
    """A row that could not be read: ``reason`` is a short stable code, ``detail`` says what was seen."""

    line: int
    reason: str  # unreadable | invalid_json | not_an_object | csv_error
    detail: str


def detect_format(path: str | Path) -> FileFormat:
    """From the name: ``.tsv``/``.tab`` → tsv, ``.jsonl``/``.ndjson``/``.json`` → jsonl, else csv."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    last = suffixes[-1] if suffixes else ""
    if last == ".gz" and len(suffixes) > 1:
        last = suffixes[-2]
    if last in {".tsv", ".tab"}:
        return "tsv"
    if last in {".jsonl", ".ndjson", ".json"}:
        return "jsonl"
    return "csv"


@dataclass
class RecordReader:
    """Iterate the records of ``path``; ``columns`` holds the column names seen so far.

    Parameters
    ----------
    path : file to read (UTF-8).
    fmt : ``"csv"``, ``"tsv"`` or ``"jsonl"``; from the suffix when None.
    short_rows : ``"error"`` (a CSV row with fewer cells than columns is a problem) or ``"partial"``.
    """

    path: Path
    fmt: FileFormat | None = None
    short_rows: Literal["error", "partial"] = "error"
    columns: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.fmt = self.fmt or detect_format(self.path)
        if self.fmt not in FORMATS:
            raise ValueError(f"unknown format {self.fmt!r}; use csv, tsv or jsonl")

    def __iter__(self) -> Iterator[Record | RecordProblem]:
        """Raises OSError only when the file cannot be opened; every row problem is yielded."""
        if self.fmt == "jsonl":
            return self._jsonl()
        return self._delimited("\t" if self.fmt == "tsv" else ",")

    # ---- JSONL -------------------------------------------------------------------------------
    def _jsonl(self) -> Iterator[Record | RecordProblem]:
        seen: dict[str, None] = {}
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if number == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    yield RecordProblem(number, "unreadable", f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
                    continue
                if not text.strip():
                    continue
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    yield RecordProblem(number, "invalid_json", f"{exc.msg} at column {exc.colno}")
                    continue
                except (ValueError, RecursionError) as exc:  # an integer over 4300 digits, nesting too deep
                    yield RecordProblem(number, "invalid_json", f"{type(exc).__name__}: {str(exc)[:200]}")
                    continue
                if not isinstance(data, dict):
                    yield RecordProblem(number, "not_an_object",
                                        f"expected an object with fields, got {type(data).__name__}")
                    continue
                seen.update(dict.fromkeys(data))
                self.columns = list(seen)
                yield Record(number, data)

    # ---- CSV / TSV ---------------------------------------------------------------------------
    def _delimited(self, delimiter: str) -> Iterator[Record | RecordProblem]:
        with self.path.open("rb") as raw:
            handle = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")
            reader = csv.reader(handle, delimiter=delimiter)
            header: list[str] | None = None
            for item in _rows(reader, handle):
                if isinstance(item, RecordProblem):
                    yield item
                    continue
                line, values = item
                if not any(v.strip() for v in values):
                    continue
                if _undecodable(values):
                    yield RecordProblem(line, "unreadable", "not valid UTF-8 (an undecodable byte in this row)")
                    continue
                if header is None:
                    header = [v.strip() for v in values]
                    self.columns = list(header)
                    continue
                if len(values) > len(header) or (len(values) < len(header) and self.short_rows == "error"):
                    yield RecordProblem(line, "csv_error", f"expected {len(header)} fields, got {len(values)}")
                    continue
                yield Record(line, dict(zip(header, values)))


def _undecodable(values: list[str]) -> bool:
    """Lone surrogates are what ``surrogateescape`` made of bytes that are not UTF-8."""
    return any(0xD800 <= ord(ch) <= 0xDFFF for value in values for ch in value)


def _rows(reader: Any, handle: Any) -> Iterator[tuple[int, list[str]] | RecordProblem]:
    """(first line of the row, cells) or a problem, for every row.

    The last row is held back one step: a quote that is never closed makes the (lenient) csv reader
    swallow every following line into one field, which must be reported, not kept. After a csv error
    (a field over the size limit) the reader goes on at the next line.
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
                held = None
            yield RecordProblem(line, "csv_error", f"unreadable row ({exc})")
            line = reader.line_num + 1
            continue
        if held is not None:
            yield held
        held, end = (line, values), reader.line_num
        line = reader.line_num + 1
    if held is None:
        return
    if end > held[0] and _unterminated_quote(handle, held[0], reader.dialect.delimiter):
        yield RecordProblem(held[0], "csv_error",
                            "unterminated quote: the rest of the file would be one field; row and rest of file skipped")
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
