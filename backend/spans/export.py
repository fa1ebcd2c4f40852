"""Gold spans to files: JSONL with character offsets, and CoNLL/IOB2 for training sets.

JSONL rows are ``{"id", "text", "spans": [{"start", "end", "label", "text"}], "offsets": "codepoints"}``:
the offsets say how they count (Python code points, what Label Studio 1.23.2 stores), so a reader in
a UTF-16 language (JavaScript, Java) knows to convert.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Sequence

from backend.common.atomic_write import atomic_write
from backend.spans.conll import write_conll
from backend.spans.model import Span
from backend.spans.value import decode_spans

OFFSETS = "codepoints"


def jsonl_rows(items: Iterable[tuple[str, str, Sequence[Span]]]) -> list[str]:
    """One JSON line per ``(id, text, spans)``."""
    return [json.dumps({"id": item_id, "text": text, "spans": [s.to_dict() for s in sorted(set(spans))],
                        "offsets": OFFSETS}, ensure_ascii=False) for item_id, text, spans in items]


def write_span_files(items: Sequence[tuple[str, str, Sequence[Span]]], *, jsonl: Path | None = None,
                     conll: Path | None = None) -> int:
    """Write the chosen files atomically; returns the spans the CoNLL file had to widen to tokens."""
    widened = 0
    if jsonl is not None:
        with atomic_write(jsonl) as handle:
            handle.write("".join(row + "\n" for row in jsonl_rows(items)))
    if conll is not None:
        text, widened = write_conll((text, spans) for _, text, spans in items)
        with atomic_write(conll) as handle:
            handle.write(text)
    return widened


def conll_from_rows(rows: Sequence[tuple[str, str | None]], texts: dict[str, str | None], path: Path) -> int:
    """CoNLL/IOB2 of gold rows ``(task id, span value)``: rows without a label or a text are left out."""
    items = [(item_id, str(texts[item_id]), decode_spans(value)) for item_id, value in rows
             if value is not None and texts.get(item_id)]
    return write_span_files(items, conll=path)
