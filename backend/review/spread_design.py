"""The ``spread`` design: the control sample drawn where the judges are least sure, in batches that grow.

Active statistical inference (Zrnic & Candès 2024) samples an item with probability ∝ how unsure the
predictor is, sqrt(s(1 − s)) for a score s = P(label wrong), and weights it back. Here that is a stratified
design the judge-assisted estimator already understands (:mod:`backend.estimates.judge_assisted`): the
items fall in three strata by the judges' certainty (min(s, 1 − s) < 5 %, < 20 %, the rest), and each
stratum gets draws ∝ N_h · S_h, S_h = sqrt(mean s(1 − s)) over its items (Neyman allocation with the
scores' own anticipated spread; a stratum of sure items still gets its share, floored at
:data:`SPREAD_FLOOR`). Inclusion probability n_h / N_h, so each item is weighted back by N_h / n_h.

Batches: each stratum's items are put in one seeded random order when the first batch is drawn, and a
batch of m items in all takes the first n_h(m) of each order (n_h never shrinks). A prefix of a random
order is a simple random sample, so after every batch the sample is a stratified random sample of its
current sizes: the estimate after any batch rests on a valid design (whether *stopping* on it keeps the
coverage is the stopping rule's question: :mod:`backend.review.until_width`).
"""

from __future__ import annotations

import math
import random
from typing import Mapping

from backend.review.sampling import Draw, DrawnItem, allocate

__all__ = ["SPREAD", "SPREAD_FLOOR", "MIN_PER_STRATUM", "certainty_stratum", "spread_strata", "stratum_spreads",
           "stratum_orders", "spread_plan", "spread_draw"]

SPREAD = "spread"
#: A stratum's anticipated spread is at least sqrt(0.01 · 0.99): judges calling every item right still get checked.
SPREAD_FLOOR = math.sqrt(0.01 * 0.99)
#: Draws every stratum gets first: the estimator's jackknife needs 3 settled items in each sampled stratum.
MIN_PER_STRATUM = 3
_CUTS = ((0.05, "judges sure (P(wrong) < 5 % or > 95 %)"), (0.2, "judges fairly sure (5–20 % or 80–95 %)"))
_UNSURE = "judges unsure (P(wrong) 20–80 %)"


def certainty_stratum(score: float) -> str:
    """The stratum of an item whose judges give P(label wrong) = ``score``."""
    distance = min(score, 1.0 - score)
    return next((name for cut, name in _CUTS if distance < cut), _UNSURE)


def spread_strata(scores: Mapping[str, float]) -> dict[str, list[str]]:
    """Stratum name -> item ids (sorted, so the draw never depends on the order the ledger returned)."""
    strata: dict[str, list[str]] = {}
    for task_id in sorted(scores):
        strata.setdefault(certainty_stratum(scores[task_id]), []).append(task_id)
    return strata


def stratum_spreads(scores: Mapping[str, float], strata: Mapping[str, list[str]]) -> dict[str, float]:
    """S_h = sqrt(mean s(1 − s)) over each stratum's items, floored at :data:`SPREAD_FLOOR`."""
    return {name: max(math.sqrt(sum(scores[i] * (1 - scores[i]) for i in ids) / len(ids)), SPREAD_FLOOR)
            for name, ids in strata.items() if ids}


def stratum_orders(strata: Mapping[str, list[str]], *, seed: int) -> dict[str, list[str]]:
    """Each stratum's items in one seeded random order: every batch takes a prefix of it."""
    return {name: random.Random(f"{seed}:{SPREAD}:{name}").sample(ids, len(ids)) for name, ids in strata.items()}


def spread_plan(size: int, sizes: Mapping[str, int], spreads: Mapping[str, float],
                before: Mapping[str, int] | None = None) -> dict[str, int]:
    """n_h for ``size`` draws in all: ∝ N_h S_h, at least :data:`MIN_PER_STRATUM` each, never below ``before``."""
    before = before or {}
    plan = allocate(max(size, sum(before.values())), sizes, spread=spreads, minimum=MIN_PER_STRATUM)
    return {name: max(plan.get(name, 0), before.get(name, 0)) for name in sizes}


def spread_draw(scores: Mapping[str, float], *, size: int, seed: int, previous: Draw | None = None) -> Draw:
    """The first ``size`` items of the spread design (``previous``: the draw so far, which this one extends).

    ValueError when ``previous`` was not drawn on the same strata (the audit's scores changed since, so
    the earlier batches' inclusion probabilities no longer describe this population).
    """
    if size < 0:
        raise ValueError("the sample size must be >= 0")
    strata = spread_strata(scores)
    sizes = {name: len(ids) for name, ids in strata.items()}
    if previous is not None:
        if previous.design != SPREAD or previous.seed != seed:
            raise ValueError(f"this project's control sample is a {previous.design} draw (seed {previous.seed}); "
                             f"--until-width grows only its own {SPREAD} draw (seed {seed})")
        member = {t: name for name, ids in strata.items() for t in ids}
        if dict(previous.strata) != sizes or any(member.get(i.task_id) != i.stratum for i in previous.items):
            raise ValueError("the audit's scores changed since the control sample was drawn: its strata no longer "
                             "match; the sample is kept, and cannot grow on a different design")
    plan = spread_plan(size, sizes, stratum_spreads(scores, strata),
                       previous.sample_sizes() if previous is not None else None)
    items = [DrawnItem(t, name, sizes[name], plan[name])
             for name, order in sorted(stratum_orders(strata, seed=seed).items()) for t in order[:plan[name]]]
    return Draw(design=SPREAD, seed=seed, strata=sizes, items=tuple(items))
