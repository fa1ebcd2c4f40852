"""The review's sampling design: which audited items go to the experts as a random control sample.

Flagged items alone say how precise the flags are, never how many errors the project holds nor
how many the ensemble missed (Nahum §4.2 and App. G.1 re-annotate a *random* 160 items per dataset
for Table 2). ``review push --sample N`` therefore adds a seeded random draw:

* ``random``: one stratum, N items drawn uniformly from every audited item (flagged or not);
* ``stratified``: the flagged items already in review form a census stratum (inclusion probability
  1); the flagged items left out of the review (a budget) and the unflagged items are the sampled
  strata, the unflagged ones optionally split into bands of the ensemble's confidence; N is spread
  over the sampled strata by :func:`allocate`: every sampled stratum gets at least two draws (one
  draw gives no spread, none leaves its rate unknown for ever), the rest in proportion to N_h·S_h
  (Neyman) where S_h = sqrt(p_h(1 − p_h)) comes from the ensemble's confidence (a flagged item is an
  error with probability ≈ its confidence, an unflagged one ≈ 1 − confidence), else to N_h.

Strata, sizes and inclusion probabilities are fixed when the draw is made and stored with it, so
the estimate later rests on the design that was actually run. Order inside each expert's project
comes from :func:`blind_order`, a keyed hash that says nothing about an item's stratum.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import dataclass
from typing import Mapping, Sequence

__all__ = ["DESIGNS", "Candidate", "Draw", "DrawnItem", "allocate", "anticipated_spread", "assign_strata", "blind_order", "draw_sample"]

DESIGNS = ("random", "stratified")
FLAGGED_REVIEWED, FLAGGED_OTHER, UNFLAGGED, ALL = "flagged", "flagged, not in review", "unflagged", "all"


@dataclass(frozen=True)
class Candidate:
    """An audited item as the design sees it: its id, whether it is flagged and in review, its confidence."""

    task_id: str
    flagged: bool
    in_review: bool = False
    confidence: float | None = None


@dataclass(frozen=True)
class DrawnItem:
    task_id: str
    stratum: str
    stratum_population: int
    stratum_sample: int

    @property
    def inclusion_probability(self) -> float:
        return self.stratum_sample / self.stratum_population


@dataclass(frozen=True)
class Draw:
    """One design's draw: every stratum's size, the items drawn from it, the seed that drew them."""

    design: str
    seed: int
    strata: Mapping[str, int]
    items: tuple[DrawnItem, ...]

    def sample_sizes(self) -> dict[str, int]:
        return {name: sum(1 for i in self.items if i.stratum == name) for name in self.strata}


def _band_name(confidence: float | None, bands: Sequence[float]) -> str:
    if confidence is None or not bands:
        return UNFLAGGED
    edges = [0.0, *sorted(bands), 1.0]
    for low, high in zip(edges, edges[1:]):
        if confidence < high or high == 1.0:
            return f"{UNFLAGGED}, confidence {low:g}–{high:g}"
    return UNFLAGGED  # pragma: no cover - the loop always returns


def assign_strata(candidates: Sequence[Candidate], *, design: str,
                  bands: Sequence[float] = ()) -> dict[str, list[str]]:
    """Stratum name -> task ids, in the candidates' order (``bands``: confidence cut points for unflagged)."""
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)}, got {design!r}")
    strata: dict[str, list[str]] = {}
    for c in candidates:
        if design == "random":
            name = ALL
        elif c.flagged:
            name = FLAGGED_REVIEWED if c.in_review else FLAGGED_OTHER
        else:
            name = _band_name(c.confidence, bands)
        strata.setdefault(name, []).append(c.task_id)
    return strata


MIN_DRAWS = 2
_ANTICIPATED_FLOOR = 0.01  # a stratum the ensemble calls error-free still gets Neyman weight


def _fixed_point(budget: int, sizes: Mapping[str, int], weight: Mapping[str, float],
                 minimum: int) -> dict[str, float]:
    """Real-valued shares ∝ weight, each clamped to [min(minimum, N_h), N_h], summing to ``budget``."""
    fixed: dict[str, float] = {}
    while True:
        free = [h for h in sizes if h not in fixed]
        left = budget - sum(fixed.values())
        total = sum(weight[h] for h in free)
        share = {h: left * weight[h] / total if total > 0 else left / max(len(free), 1) for h in free}
        clamp = {h: float(min(max(x, min(minimum, sizes[h])), sizes[h])) for h, x in share.items()}
        moved = {h for h in free if clamp[h] != share[h]}
        if not moved:
            return {**fixed, **share}
        worst = max(moved, key=lambda h: abs(clamp[h] - share[h]))
        fixed[worst] = clamp[worst]


def allocate(budget: int, sizes: Mapping[str, int], *, spread: Mapping[str, float] | None = None,
             minimum: int = MIN_DRAWS) -> dict[str, int]:
    """Split ``budget`` draws over strata: at least ``minimum`` each, the rest ∝ N_h (or N_h·S_h given ``spread``).

    Largest remainders round the shares; no stratum gets more than its size. When the budget cannot
    give every stratum ``minimum`` draws, the largest strata are served first.
    """
    if budget < 0:
        raise ValueError("the sample size must be >= 0")
    total = sum(sizes.values())
    budget = min(budget, total)
    if total == 0:
        return {name: 0 for name in sizes}
    live = {h: n for h, n in sizes.items() if n > 0}
    if sum(min(minimum, n) for n in live.values()) > budget:
        plan = {name: 0 for name in sizes}
        for h in sorted(live, key=lambda h: (-live[h], h)):
            plan[h] = min(minimum, live[h], budget - sum(plan.values()))
        return plan
    weight = {h: n * (spread.get(h, 1.0) if spread else 1.0) for h, n in live.items()}
    exact = _fixed_point(budget, live, weight, minimum)
    share = {name: int(exact.get(name, 0) + 1e-9) for name in sizes}
    by_remainder = sorted(live, key=lambda name: (share[name] - exact[name], name))
    for name in [h for h in by_remainder if share[h] < live[h]][: budget - sum(share.values())]:
        share[name] += 1
    return share


def anticipated_spread(candidates: Sequence[Candidate], strata: Mapping[str, Sequence[str]]) -> dict[str, float] | None:
    """S_h = sqrt(p̄_h(1 − p̄_h)) per stratum from the ensemble's confidence; None when no confidence is known."""
    by_id = {c.task_id: c for c in candidates}
    out: dict[str, float] = {}
    for name, ids in strata.items():
        probs = [(c.confidence if c.flagged else 1.0 - c.confidence) for c in (by_id[i] for i in ids)
                 if c.confidence is not None]
        if not probs:
            return None
        p = min(max(sum(probs) / len(probs), _ANTICIPATED_FLOOR), 1.0 - _ANTICIPATED_FLOOR)
        out[name] = (p * (1.0 - p)) ** 0.5
    return out


def draw_sample(candidates: Sequence[Candidate], *, budget: int, design: str, seed: int,
                bands: Sequence[float] = ()) -> Draw:
    """Seeded draw of ``budget`` items under ``design`` (the flagged-in-review stratum is a census)."""
    strata = assign_strata(candidates, design=design, bands=bands)
    sizes = {name: len(ids) for name, ids in strata.items()}
    sampled_sizes = {name: n for name, n in sizes.items() if name != FLAGGED_REVIEWED}
    spread = anticipated_spread(candidates, {h: strata[h] for h in sampled_sizes}) if design == "stratified" else None
    plan = allocate(budget, sampled_sizes, spread=spread)
    if FLAGGED_REVIEWED in sizes:
        plan[FLAGGED_REVIEWED] = sizes[FLAGGED_REVIEWED]
    items: list[DrawnItem] = []
    for name in sorted(strata):
        ids = sorted(strata[name])  # the draw must not depend on the order the ledger returned rows in
        chosen = random.Random(f"{seed}:{design}:{name}").sample(ids, plan[name])
        items.extend(DrawnItem(t, name, sizes[name], plan[name]) for t in chosen)
    return Draw(design=design, seed=seed, strata=sizes, items=tuple(items))


def blind_order(task_ids: Sequence[str], *, key: str) -> list[str]:
    """Task ids sorted by HMAC-SHA256(key, id): a fixed order unrelated to flag, stratum or confidence."""
    secret = key.encode("utf-8")
    return sorted(task_ids, key=lambda t: hmac.new(secret, str(t).encode("utf-8"), hashlib.sha256).digest())
