"""The original spans of a task annotated several times: per-span majority, stated.

Rule (the same words go into the report): a span — an exact extent *and* entity type — is part of the
original when **more than half** of the task's annotators marked it. A span half of them marked (a tie)
is left out, so with two annotators who disagree the original holds only what both marked; the spans
left out are kept as ``minority`` so the report can count them. One annotator: their spans as they are.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from backend.spans.model import Span, sorted_spans

RULE = "a span (exact extent and type) is original when more than half of the annotators marked it"


@dataclass(frozen=True)
class OriginalSpans:
    """The majority spans, the spans some annotators marked but no majority, and the annotators counted."""

    spans: tuple[Span, ...]
    minority: tuple[Span, ...]
    annotators: int


def original_spans(annotations: Sequence[Sequence[Span]]) -> OriginalSpans:
    """Apply :data:`RULE` to the spans of each annotation (one sequence per annotator)."""
    if not annotations:
        return OriginalSpans((), (), 0)
    votes: Counter[Span] = Counter()
    for spans in annotations:
        votes.update(set(spans))
    need = len(annotations) / 2
    kept = sorted_spans(s for s, n in votes.items() if n > need)
    rest = sorted_spans(s for s, n in votes.items() if n <= need)
    return OriginalSpans(kept, rest, len(annotations))
