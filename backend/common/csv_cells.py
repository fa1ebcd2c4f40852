"""Spreadsheet-safe cells for every CSV/TSV file label-audit writes (formula injection, CWE-1236).

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a formula by
Excel, LibreOffice and Google Sheets when the file is opened — ``=HYPERLINK(...)`` or ``@SUM(...)`` in an
item id or a label from the data would do exactly that. Such a cell gets the usual neutralising prefix, a
leading ``'``, which spreadsheets show as text. Cells that are plain numbers (``-1``, ``+0.5``) are left
alone so numeric columns stay numeric. Readers that need the original text strip one leading ``'`` from
cells that start with ``'`` followed by one of those characters.
"""

from __future__ import annotations

from typing import Any, Iterable

from backend.common.labels import is_number

__all__ = ["FORMULA_START", "safe_cell", "safe_row"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not is_number(value):
        return "'" + value
    return value


def safe_row(values: Iterable[Any]) -> list[Any]:
    """:func:`safe_cell` applied to every cell of a row."""
    return [safe_cell(value) for value in values]
