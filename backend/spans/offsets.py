"""Character offsets across the Label Studio boundary: code points inside, UTF-16 only when asked.

Measured on Label Studio 1.23.2 (``tests/backend/spans/test_ls_offsets.py``, API and headless
Chromium): ``<Text>`` spans are stored as Python code points — an emoji counts 1, a combining mark is
its own character, CRLF counts 2. Older clients and exports made in a browser's terms count UTF-16
units instead (Label Studio issues #4988, #3078), so a region whose offsets do not select its own
``text`` is tried once as UTF-16 before it is refused. The standard library has no offset converter
between the two (``str`` indexes code points only), hence these few lines.
"""

from __future__ import annotations


def utf16_length(text: str) -> int:
    """Number of UTF-16 code units of ``text`` (characters outside the BMP count 2)."""
    return len(text.encode("utf-16-le")) // 2


def utf16_to_codepoint(text: str, offset: int) -> int | None:
    """The code-point offset of UTF-16 ``offset`` in ``text``; None when it splits a surrogate pair
    or lies outside the text."""
    if offset < 0:
        return None
    units = 0
    for index, char in enumerate(text):
        if units == offset:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
        if units > offset:
            return None
    return len(text) if units == offset else None


def codepoint_to_utf16(text: str, offset: int) -> int:
    """The UTF-16 offset of code-point ``offset`` in ``text`` (for browsers' ``Range`` offsets)."""
    if not 0 <= offset <= len(text):
        raise ValueError(f"offset {offset} outside a text of {len(text)} characters")
    return utf16_length(text[:offset])


def resolve_offsets(text: str, start: int, end: int, expected: str | None) -> tuple[int, int, str] | None:
    """``(start, end, how)`` in code points for a region claiming ``text[start:end] == expected``.

    ``how`` is ``"codepoints"`` (Label Studio 1.23.2's own counting) or ``"utf16"`` (the offsets were
    UTF-16 units and were converted). Without ``expected`` the offsets are taken as code points when
    they fit. None when neither reading selects ``expected``.
    """
    if 0 <= start < end <= len(text) and (expected is None or text[start:end] == expected):
        return start, end, "codepoints"
    if expected is None:
        return None
    cp_start, cp_end = utf16_to_codepoint(text, start), utf16_to_codepoint(text, end)
    if cp_start is not None and cp_end is not None and cp_start < cp_end and text[cp_start:cp_end] == expected:
        return cp_start, cp_end, "utf16"
    return None
