"""Build gullibility probe items from a dataset (seed 003, §3.2.1 keyword stuffing, §3.2.2 instructions).

Two kinds of passage, both of which deserve the negative label whatever is stuffed into them:

- ``RandP``: random words from the shipped word list, 100/200/400 words long, one per sampled item
  (the item lends its query / claim / source);
- ``NonRelP``: items whose original label is the negative class, as they are.

Each is scored unmodified and with one manipulation: ``+Q`` (the key string inserted once at a random
word boundary), ``+QWs`` (each key word inserted independently at a random word boundary, stop words
included) or ``+Inst`` (the planted instruction put before the passage). The unmodified version is the
baseline each manipulation is compared with, item by item.

Every random choice comes from a :class:`random.Random` seeded with a string built from the run seed,
the purpose and the item id, so a probe is the same whatever ``n`` or the item order is, on every
machine (string seeds are hashed with SHA-512, not with Python's salted ``hash``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

from backend.task.dataset import Item
from backend.probes.layout import ProbeLayout, layout_for
from backend.probes.wordlist import load_wordlist
from backend.task.spec import TaskSpec

RANDP_LENGTHS = (100, 200, 400)
SOURCES = ("RandP", "NonRelP")
INJECTIONS = ("none", "Q", "QWs", "Inst")
_WORD = re.compile(r"\S+")
_KEY_TERM = re.compile(r"[\w][\w'’-]*")


@dataclass(frozen=True)
class Condition:
    """One probe condition, named as in seed 003: ``RandP-100+Q``, ``NonRelP+Inst``, ``RandP-200``...

    Parameters
    ----------
    source : {"RandP", "NonRelP"}
    injection : {"none", "Q", "QWs", "Inst"}
    length : int or None
        Words in the random passage; RandP only.
    """

    source: str
    injection: str = "none"
    length: int | None = None

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"probe source must be one of {SOURCES}, got {self.source!r}")
        if self.injection not in INJECTIONS:
            raise ValueError(f"probe injection must be one of {INJECTIONS}, got {self.injection!r}")
        if self.source == "RandP" and (self.length is None or self.length < 1):
            raise ValueError("a RandP condition needs a positive length")
        if self.source == "NonRelP" and self.length is not None:
            raise ValueError("a NonRelP condition has no length")

    @property
    def name(self) -> str:
        base = f"RandP-{self.length}" if self.source == "RandP" else "NonRelP"
        return base if self.injection == "none" else f"{base}+{self.injection}"

    @property
    def baseline(self) -> "Condition":
        """The unmodified condition this one is compared with."""
        return replace(self, injection="none")


@dataclass(frozen=True)
class ProbeItem:
    """A probe ready to score: the modified item, its condition and where text was inserted.

    ``positions`` are the word indices (0 = before the first word) at which the key string or key
    words went in, in insertion order; empty for baselines and ``+Inst``.
    """

    item: Item
    condition: Condition
    source_id: str
    positions: tuple[int, ...] = ()


@dataclass(frozen=True)
class ProbeSet:
    """All probes of a run plus what was available to build them."""

    probes: tuple[ProbeItem, ...]
    conditions: tuple[Condition, ...]
    randp_sources: int
    nonrelp_sources: int
    nonrelp_available: int
    layout: ProbeLayout
    notes: tuple[str, ...] = field(default_factory=tuple)


def word_count(text: str) -> int:
    """Whitespace-separated words in ``text``."""
    return len(_WORD.findall(text))


def insert_at(text: str, insertion: str, index: int) -> str:
    """Insert ``insertion`` before word ``index`` of ``text`` (``index == word_count`` appends).

    The text's own spacing and line breaks are kept; a single space separates the insertion.
    """
    starts = [m.start() for m in _WORD.finditer(text)]
    if not 0 <= index <= len(starts):
        raise ValueError(f"insert position {index} outside 0..{len(starts)}")
    if index < len(starts):
        at = starts[index]
        return f"{text[:at]}{insertion} {text[at:]}"
    if not text.strip():
        return insertion
    return f"{text.rstrip()} {insertion}{text[len(text.rstrip()):]}"


def inject_string(text: str, key: str, rng: random.Random) -> tuple[str, tuple[int, ...]]:
    """+Q: the whole key string inserted once at a uniformly random word boundary."""
    position = rng.randint(0, word_count(text))
    return insert_at(text, key.strip(), position), (position,)


def inject_words(text: str, words: Sequence[str], rng: random.Random) -> tuple[str, tuple[int, ...]]:
    """+QWs: each key word inserted independently at a random word boundary of the growing text."""
    positions: list[int] = []
    for word in words:
        position = rng.randint(0, word_count(text))
        text = insert_at(text, word, position)
        positions.append(position)
    return text, tuple(positions)


def prepend_instruction(text: str, instruction: str) -> str:
    """+Inst: the passage preceded by the planted instruction (seed 003, §3.2.2)."""
    return f"{instruction.strip()} {text}"


def key_terms(text: str, *, limit: int | None = None) -> list[str]:
    """The key's words, punctuation stripped, stop words kept (seed 003 keeps them), in order."""
    words = _KEY_TERM.findall(text)
    return words if limit is None else words[:limit]


def random_passage(rng: random.Random, length: int, *, words: Sequence[str] | None = None) -> str:
    """``length`` words drawn uniformly with replacement from the word list."""
    if length < 1:
        raise ValueError("a random passage needs at least one word")
    pool = words if words is not None else load_wordlist()
    return " ".join(rng.choices(pool, k=length))


def seeded_rng(seed: int, *parts: object) -> random.Random:
    return random.Random("|".join(str(p) for p in (seed, *parts)))


def _manipulations(base: str, key: str, layout: ProbeLayout, rng_for) -> Iterable[tuple[str, str, tuple[int, ...]]]:
    yield "none", base, ()
    if "Q" in layout.stuffing:
        text, pos = inject_string(base, key, rng_for("Q"))
        yield "Q", text, pos
    if "QWs" in layout.stuffing:
        text, pos = inject_words(base, key_terms(key, limit=layout.key_words), rng_for("QWs"))
        yield "QWs", text, pos
    yield "Inst", prepend_instruction(base, layout.instruction), ()


def _probe(item: Item, spec: TaskSpec, layout: ProbeLayout, condition: Condition, text: str, pos) -> ProbeItem:
    fields = dict(item.fields)
    fields[layout.target] = text
    probe_item = Item(
        id=f"{item.id}|{condition.name}",
        original=spec.negative_label,
        fields=fields,
        line=item.line,
        data={"probe_condition": condition.name, "probe_source_id": item.id},
    )
    return ProbeItem(probe_item, condition, item.id, tuple(pos))


def build_probes(
    items: Sequence[Item],
    spec: TaskSpec,
    *,
    n: int = 20,
    seed: int = 0,
    lengths: Sequence[int] = RANDP_LENGTHS,
    layout: ProbeLayout | None = None,
    words: Sequence[str] | None = None,
) -> ProbeSet:
    """Build RandP probes for up to ``n`` sampled items per length and NonRelP probes for up to ``n``
    negative items, each unmodified and with every manipulation the layout allows.

    Raises ValueError on ``n < 1``, a non-positive length, or a spec without a probe layout.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if any(length < 1 for length in lengths):
        raise ValueError(f"RandP lengths must be positive, got {list(lengths)}")
    layout = layout or layout_for(spec)
    pool = words if words is not None else load_wordlist()
    items = list(items)
    randp_items = seeded_rng(seed, "sample", "RandP").sample(items, min(n, len(items)))
    negatives = [it for it in items if it.original == spec.negative_label]
    nonrel_items = seeded_rng(seed, "sample", "NonRelP").sample(negatives, min(n, len(negatives)))

    probes: list[ProbeItem] = []
    for length in lengths:
        for item in randp_items:
            base = random_passage(seeded_rng(seed, "RandP", item.id, length), length, words=pool)
            key = item.fields[layout.key]
            for injection, text, pos in _manipulations(
                base, key, layout, lambda what, i=item, L=length: seeded_rng(seed, what, i.id, L)
            ):
                probes.append(_probe(item, spec, layout, Condition("RandP", injection, length), text, pos))
    for item in nonrel_items:
        key = item.fields[layout.key]
        for injection, text, pos in _manipulations(
            item.fields[layout.target], key, layout, lambda what, i=item: seeded_rng(seed, what, i.id, "NonRelP")
        ):
            probes.append(_probe(item, spec, layout, Condition("NonRelP", injection), text, pos))

    conditions = tuple(dict.fromkeys(p.condition for p in probes))
    notes = []
    if len(negatives) < n:
        notes.append(
            f"only {len(negatives)} item(s) carry the negative label {spec.negative_label!r}: "
            f"NonRelP conditions use {len(nonrel_items)} instead of {n}"
        )
    return ProbeSet(
        probes=tuple(probes),
        conditions=conditions,
        randp_sources=len(randp_items),
        nonrelp_sources=len(nonrel_items),
        nonrelp_available=len(negatives),
        layout=layout,
        notes=tuple(notes),
    )
