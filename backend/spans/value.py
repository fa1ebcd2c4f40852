"""A span annotation as one label value string: what the ledger, review stores and report keep.

Canonical, compact JSON: ``[[start, end, "TYPE", "text"], ...]`` sorted, no spaces. The span text is kept
so offsets can be checked (and converted from UTF-16) once the item's text is at hand
(:func:`checked_spans`). A prediction value may carry a fifth element per span,
``{"c": confidence, "k": kind}``: comparisons read only the first four.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from backend.spans.model import Span
from backend.spans.offsets import resolve_offsets


def encode_spans(spans: Iterable[Span], *, extras: Sequence[dict[str, Any]] | None = None) -> str:
    """The canonical value of ``spans`` (``extras``: one dict per span, in the same order)."""
    ordered = list(spans) if extras is not None else sorted(set(spans))
    rows: list[list[Any]] = [[s.start, s.end, s.label, s.text] for s in ordered]
    for row, extra in zip(rows, extras or ()):
        row.append(extra)
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def decode_rows(value: str) -> list[list[Any]]:
    """The raw rows of a value; ValueError for anything that is not a span list."""
    rows = json.loads(value)
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) >= 3 for r in rows):
        raise ValueError(f"{value[:80]!r} is not a span list")
    return rows


def decode_spans(value: str) -> tuple[Span, ...]:
    """The spans of a value (extras dropped), sorted."""
    return tuple(sorted({Span(int(r[0]), int(r[1]), str(r[2]), str(r[3]) if len(r) > 3 else "")
                         for r in decode_rows(value)}))


def checked_spans(value: str, text: str) -> tuple[tuple[Span, ...], list[str]]:
    """The value's spans placed in ``text`` (UTF-16 offsets converted); spans that fit nowhere are
    dropped and described."""
    kept, problems = [], []
    for span in decode_spans(value):
        resolved = resolve_offsets(text, span.start, span.end, span.text or None)
        if resolved is None:
            problems.append(f"span [{span.start}, {span.end}) {span.text!r:.40} is not in the text")
            continue
        start, end, _ = resolved
        kept.append(Span(start, end, span.label, text[start:end]))
    return tuple(sorted(set(kept))), problems
