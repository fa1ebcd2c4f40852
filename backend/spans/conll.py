"""CoNLL/IOB2 <-> text with character spans.

Reading: a CoNLL file (one ``token<TAB or space>tag`` per line, blank line between sentences; tags
``B-T``/``I-T``/``O``) becomes one text per sentence — the tokens joined by single spaces — with
its spans in code points. An ``I-T`` that does not continue a ``T`` starts a new span (IOB1 habit),
counted so a reader can see the file was not strict IOB2.

Writing: a text is cut into tokens (words, single punctuation marks, single CJK characters) and each
token gets B-/I-/O from the spans it falls in. A span that does not start or end on a token edge is
widened to the tokens it touches, and counted: IOB cannot say more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from backend.spans.model import Span

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W_]+(?:['’-][^\W_]+)*|\S")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a CoNLL file as text and spans (``line``: where it starts, 1-based)."""

    text: str
    spans: tuple[Span, ...]
    line: int
    loose_i_tags: int = 0


def _close(spans: list[Span], text: str, current: tuple[int, int, str] | None) -> None:
    if current is not None:
        start, end, label = current
        spans.append(Span(start, end, label, text[start:end]))


def sentence_from_tokens(tokens: Sequence[tuple[str, str]], *, line: int = 1) -> Sentence:
    """``[(token, tag), ...]`` -> a :class:`Sentence` (tokens joined by one space)."""
    text = " ".join(tok for tok, _ in tokens)
    spans: list[Span] = []
    current: tuple[int, int, str] | None = None
    loose = pos = 0
    for tok, tag in tokens:
        start, end = pos, pos + len(tok)
        pos = end + 1
        prefix, _, label = tag.partition("-")
        if prefix == "I" and current is not None and current[2] == label:
            current = (current[0], end, label)
            continue
        _close(spans, text, current)
        current = None
        if prefix in ("B", "I") and label:
            loose += prefix == "I"
            current = (start, end, label)
    _close(spans, text, current)
    return Sentence(text, tuple(spans), line, loose)


def read_conll(path: str | Path, *, limit: int | None = None) -> Iterator[Sentence]:
    """The sentences of a CoNLL file (first column token, last column tag)."""
    tokens: list[tuple[str, str]] = []
    first = 1
    count = 0
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            parts = raw.split()
            if not parts:
                if tokens:
                    yield sentence_from_tokens(tokens, line=first)
                    count += 1
                    if limit is not None and count >= limit:
                        return
                tokens = []
                first = number + 1
                continue
            tokens.append((parts[0], parts[-1] if len(parts) > 1 else "O"))
    if tokens and (limit is None or count < limit):
        yield sentence_from_tokens(tokens, line=first)


def tokens_of(text: str) -> list[tuple[int, int]]:
    """Token extents of ``text`` (see the module docstring)."""
    return [m.span() for m in _TOKEN.finditer(text)]


def iob_tags(text: str, spans: Iterable[Span]) -> tuple[list[tuple[str, str]], int]:
    """``([(token, tag), ...], widened)``: IOB2 tags of ``text``; ``widened`` counts spans off token edges.

    Overlapping spans cannot both be written in IOB: the earlier (then longer) one wins.
    """
    toks = tokens_of(text)
    tags = ["O"] * len(toks)
    widened = 0
    for span in sorted(set(spans), key=lambda s: (s.start, -(s.end - s.start))):
        inside = [i for i, (s, e) in enumerate(toks) if s < span.end and span.start < e]
        if not inside or any(tags[i] != "O" for i in inside):
            continue
        widened += toks[inside[0]][0] != span.start or toks[inside[-1]][1] != span.end
        for n, i in enumerate(inside):
            tags[i] = ("B-" if n == 0 else "I-") + span.label
    return [(text[s:e], tag) for (s, e), tag in zip(toks, tags)], widened


def write_conll(rows: Iterable[tuple[str, Sequence[Span]]]) -> tuple[str, int]:
    """CoNLL text (``token<TAB>tag``, blank line between items) and the number of widened spans."""
    blocks, widened = [], 0
    for text, spans in rows:
        tagged, w = iob_tags(text, spans)
        widened += w
        blocks.append("\n".join(f"{tok}\t{tag}" for tok, tag in tagged))
    return "\n\n".join(blocks) + "\n", widened
