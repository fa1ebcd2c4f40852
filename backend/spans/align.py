"""Proposed entity strings -> exact offsets in the item's text.

A judge names entities by their words, never by offsets (models count characters badly). Each string
is found in the text at word boundaries (so "Ann" never lands inside "Annabel"); a string that occurs
several times ("Paris ... Paris") gives one proposal per occurrence, because a judge listing it means
the name, wherever it stands; the ensemble then verifies each occurrence on its own. A string found
nowhere as written is looked for again ignoring case and with any run of spaces matching any run
(a real model writes "Paulwalk" for "@paulwalk", "New  York" for "New York"); the span is always the
text's own characters. A string found nowhere even so is dropped and counted (hallucinated or
re-worded by the judge). One extent is proposed once: listed under two types, the first type wins.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from backend.spans.model import Span


@dataclass(frozen=True)
class Aligned:
    """The proposals placed in the text, and the proposed strings that were not found."""

    spans: tuple[Span, ...]
    unfound: tuple[str, ...]


def _is_word(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char).startswith("M") or char == "_"


def occurrences(text: str, needle: str, *, loose: bool = False) -> list[tuple[int, int]]:
    """Every ``[start, end)`` where ``needle`` occurs in ``text`` on word boundaries.

    A boundary is only required on a side where the needle itself begins/ends with a word character,
    so "U.S." and "#tag" still match; CJK text has no spaces, so a needle made of CJK characters
    matches anywhere. ``loose`` ignores case and lets any run of whitespace match any run.
    """
    needle = needle.strip()
    if not needle:
        return []
    if loose:
        pattern = re.compile(r"\s+".join(re.escape(part) for part in needle.split()), re.IGNORECASE)
    else:
        pattern = re.compile(re.escape(needle))
    found = []
    for match in pattern.finditer(text):
        start, end = match.span()
        if _cjk(needle) or (_boundary(text, start, needle[0], before=True)
                            and _boundary(text, end, needle[-1], before=False)):
            found.append((start, end))
    return found


def _cjk(needle: str) -> bool:
    return all(unicodedata.east_asian_width(c) in ("W", "F") for c in needle if not c.isspace())


def _boundary(text: str, index: int, edge: str, *, before: bool) -> bool:
    if not _is_word(edge):
        return True
    neighbour = text[index - 1] if before and index > 0 else (text[index] if not before and index < len(text) else "")
    return not neighbour or not _is_word(neighbour)


def align(text: str, proposed: dict[str, list[str]]) -> Aligned:
    """Place ``{entity type: [strings]}`` in ``text``: one span per occurrence, one type per extent."""
    spans: dict[tuple[int, int], Span] = {}
    unfound: list[str] = []
    for label, strings in proposed.items():
        for string in strings:
            places = occurrences(text, string) or occurrences(text, string, loose=True)
            if not places:
                unfound.append(string)
            for s, e in places:
                spans.setdefault((s, e), Span(s, e, label, text[s:e]))
    return Aligned(tuple(sorted(spans.values())), tuple(unfound))
