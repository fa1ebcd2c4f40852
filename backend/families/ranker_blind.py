"""The list an expert ranks, in an order of its own: never the order the source stored or ranked it in.

A ``<List>`` is often stored in the order its annotator (or a model) ranked it. Label Studio shows the list in
data order, and a bucketless ranker submitted untouched saves that order (docs/controls.md, "Ranker"), so a
blind review showing the data order would show the expert the original ranking pre-ordered. The expert's copy
holds the list shuffled per task (seeded, so a re-push imports the same copy), and rotated when the shuffle
happens to give back the ranking under review. Answers name responses by ``id``, so the shown order changes no
reading of them.

Label Studio 1.23.2 orders the cards by the JavaScript keys of an object of ids (``Object.keys``): ids that read
as array indices (``"1"``, ``"2"``) are shown in ascending number order whatever the data order, so for them the
shuffle cannot reach the screen (:func:`numeric_ids`).
"""

from __future__ import annotations

import json
import random
from typing import Any, Sequence

__all__ = ["blind_list", "blind_value", "entry_ids", "numeric_ids"]

_INDEX_MAX = 2**32 - 2  # the largest array index of JavaScript: such keys come first, in number order


def entry_ids(entries: Sequence[Any]) -> list[str]:
    """The ids of a list's entries as Label Studio reads them (strings; "" for an entry without one)."""
    return [str(e.get("id", "")) if isinstance(e, dict) else "" for e in entries]


def numeric_ids(ids: Sequence[str]) -> bool:
    """Whether any id is a JavaScript array index (``"0"``, ``"12"``; not ``"01"``), which Label Studio's ranker
    shows first and in number order, whatever the list's order."""
    return any(i.isdigit() and str(int(i)) == i and int(i) <= _INDEX_MAX for i in ids)


def _differs(order: Sequence[str], avoid: Sequence[str]) -> bool:
    """Whether the ids of ``avoid`` come in ``order`` otherwise than in ``avoid``."""
    wanted = set(avoid)
    return [i for i in order if i in wanted] != list(avoid)


def blind_list(entries: Sequence[Any], *, seed: str, avoid: Sequence[str]) -> list[Any]:
    """``entries`` shuffled by ``seed``; when the shuffle keeps the ids of ``avoid`` in ``avoid``'s order, the
    first rotation of it that does not (one exists once two distinct ids of ``avoid`` are in the list: moving
    the first of them to the end turns their order)."""
    out = list(entries)
    random.Random(seed).shuffle(out)
    ids = entry_ids(out)
    present = [i for i in dict.fromkeys(avoid) if i in ids]
    if len(present) < 2:
        return out
    for shift in range(len(out)):
        turned = out[shift:] + out[:shift]
        if _differs(entry_ids(turned), present):
            return turned
    return out


def blind_value(value: Any, *, seed: str, avoid: Sequence[str] | None) -> Any:
    """A list field's value (a list of entries, or its JSON text) shuffled by :func:`blind_list`, in the same
    form; ``avoid`` None: avoid the value's own order. Anything that is not a list is returned unchanged."""
    text = isinstance(value, str)
    try:
        entries = json.loads(value) if text else value
    except ValueError:
        return value
    if not isinstance(entries, list):
        return value
    shown = blind_list(entries, seed=seed, avoid=entry_ids(entries) if avoid is None else avoid)
    return json.dumps(shown, ensure_ascii=False) if text else shown
