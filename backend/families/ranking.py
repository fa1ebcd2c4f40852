"""A ranking's label value: its columns as canonical JSON, the ids it places, swapped pairs, Kendall's τ.

A ``<Ranker>`` result's ``value.ranker`` maps each column to its ids in the order shown (docs/controls.md): with
buckets, each bucket by its name and the list's own column by ``"_"``; without, one column keyed by the ranker's
name. The value keeps that object as compact JSON, its buckets first in config order, so the ledger and the
review stores hold one string per item and write it back unchanged. What is *ranked* is what was placed: without
buckets the one column; with buckets the buckets in config order (the first the best), the list's column not.
Pure functions, shared by the family (:mod:`backend.families.ranker`) and the report (through ``backend.api``).
"""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any, Mapping, Sequence

__all__ = ["columns_of", "dump", "kendall_distance", "kendall_tau", "ranked_ids", "reordered"]


def columns_of(raw: Any, buckets: Sequence[str]) -> dict[str, list[Any]] | None:
    """A ``ranker`` object with its columns in config order (buckets first); None when it is no ranking."""
    if not isinstance(raw, Mapping) or not raw:
        return None
    seen: set[str] = set()
    for ids in raw.values():
        if not isinstance(ids, list) or any(isinstance(i, (bool, list, dict)) or i is None for i in ids):
            return None
        for i in ids:
            if str(i) in seen:
                return None  # an id in two places: which rank was meant is unknown
            seen.add(str(i))
    order = [b for b in buckets if b in raw] + sorted(k for k in raw if k not in buckets)
    return {str(k): list(raw[k]) for k in order}


def dump(columns: Mapping[str, list[Any]]) -> str:
    """Compact JSON, columns in the order given: one string per ranking (a ledger column holds 255 characters)."""
    return json.dumps(columns, separators=(",", ":"), ensure_ascii=False)


def ranked_ids(value: str | None, buckets: Sequence[str]) -> list[str]:
    """The placed ids of a label value, best first (module docstring: what is ranked); [] for None."""
    if value is None:
        return []
    columns = json.loads(value)
    if not buckets:
        return [str(i) for ids in columns.values() for i in ids]
    return [str(i) for b in buckets for i in columns.get(b, ())]


def kendall_distance(first: Sequence[str], second: Sequence[str]) -> int:
    """Pairs of ids ranked in both whose order differs (the number of swapped pairs)."""
    where = {i: k for k, i in enumerate(second)}
    common = [i for i in first if i in where]
    return sum(1 for a, b in combinations(common, 2) if where[a] > where[b])


def kendall_tau(first: Sequence[str], second: Sequence[str]) -> float:
    """Kendall's τ of two strict orders of the same ids: 1 - 4 D / (n (n - 1)), D the swapped pairs.

    Why by hand: without ties τ-a and τ-b are this count (scipy's ``kendalltau`` gives the same), and importing
    scipy.stats here would load it in every process that derives a spec (``projectspec`` 0.36 s -> 3.3 s, measured).
    """
    n = len(first)
    return 1.0 - 4.0 * kendall_distance(first, second) / (n * (n - 1)) if n > 1 else 1.0


def reordered(original: str | None, ensemble: Sequence[str], buckets: Sequence[str]) -> str:
    """The original's columns, their placed ids replaced in the ensemble's order (each column keeps its size)."""
    columns = json.loads(original or "{}")
    raw = {str(i): i for ids in columns.values() for i in ids}  # ids keep their JSON type (a number stays one)
    placed = iter(ensemble)
    ranked_columns = list(buckets) if buckets else list(columns)
    out = {k: ([raw[next(placed)] for _ in ids] if k in ranked_columns else list(ids)) for k, ids in columns.items()}
    return dump(out)
