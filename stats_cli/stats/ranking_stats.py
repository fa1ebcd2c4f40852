"""Rankings of responses: agreement between rankers (Kendall's W, mean pairwise τ) and τ against a reference.

A ranking is a list of ids, best first (the ids a ``<Ranker>`` annotator placed: ``ranked_ids`` in
:mod:`backend.families.ranking`). Two rankings of one item are compared on the ids both ranked.

- **Mean pairwise τ** (per item, the mean Kendall τ-b over its pairs of rankers; then the mean over items):
  τ = 1 when two rankers order every common pair alike, -1 when they reverse them all. scipy's ``kendalltau``.
- **Kendall's W** (coefficient of concordance, per item over all its rankers at once; then the mean over items):
  0 = no agreement beyond chance, 1 = identical rankings. W = 12 S / (m² (n³ - n)) over m rankers of n
  common ids without ties, S the sum of squared deviations of the rank sums. Written by hand because neither
  scipy nor the project's dependencies have it (scipy's Friedman χ² equals m (n - 1) W, checked in the tests,
  but refuses fewer than three responses: W is defined from two).
- **τ against a reference** (the ensemble against the original, or either against gold): one τ per item;
  :func:`tau_summary` gives their distribution (quartiles, share reversed in part, share fully kept).
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from scipy.stats import kendalltau

__all__ = ["RankAgreement", "TauSummary", "agreement", "kendall_w", "mean_pairwise_tau", "tau", "tau_summary"]


def _common(rankings: Sequence[Sequence[str]]) -> list[list[str]]:
    """Each ranking cut to the ids every ranking holds (its own order kept)."""
    shared = set(rankings[0]).intersection(*map(set, rankings[1:])) if rankings else set()
    return [[i for i in r if i in shared] for r in rankings]


def tau(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Kendall's τ-b of two rankings on their common ids; None under two common ids."""
    a, b = _common([first, second])
    if len(a) < 2:
        return None
    where = {i: k for k, i in enumerate(b)}
    return float(kendalltau(range(len(a)), [where[i] for i in a]).statistic)


def mean_pairwise_tau(rankings: Sequence[Sequence[str]]) -> float | None:
    """The mean τ over every pair of ``rankings`` of one item; None under two rankings (or common ids)."""
    taus = [t for a, b in itertools.combinations(rankings, 2) if (t := tau(a, b)) is not None]
    return sum(taus) / len(taus) if taus else None


def kendall_w(rankings: Sequence[Sequence[str]]) -> float | None:
    """Kendall's W of one item's rankings on their common ids; None under two rankings or two common ids."""
    cut = _common(rankings)
    m, n = len(cut), len(cut[0]) if cut else 0
    if m < 2 or n < 2:
        return None
    sums = [0] * n
    order = {i: k for k, i in enumerate(cut[0])}
    for ranking in cut:
        for rank, i in enumerate(ranking, start=1):
            sums[order[i]] += rank
    mean = m * (n + 1) / 2
    s = sum((r - mean) ** 2 for r in sums)
    return 12 * s / (m ** 2 * (n ** 3 - n))


@dataclass(frozen=True)
class RankAgreement:
    """Agreement of one group of rankers over the items at least two of them ranked."""

    items: int
    mean_w: float | None
    mean_tau: float | None

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "mean_kendall_w": self.mean_w, "mean_pairwise_tau": self.mean_tau}


def agreement(answers: Mapping[str, Mapping[str, Sequence[str] | None]]) -> RankAgreement:
    """Item -> rater -> ranking (None: no answer) -> mean W and mean pairwise τ over the items with two rankings."""
    ws, taus = [], []
    for by_rater in answers.values():
        rankings = [r for r in by_rater.values() if r]
        if len(rankings) < 2:
            continue
        if (w := kendall_w(rankings)) is not None:
            ws.append(w)
        if (t := mean_pairwise_tau(rankings)) is not None:
            taus.append(t)
    return RankAgreement(items=max(len(ws), len(taus)), mean_w=_mean(ws), mean_tau=_mean(taus))


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class TauSummary:
    """The distribution of per-item τ: count, mean, quartiles, the share below 1 and the share below 0."""

    n: int
    mean: float | None
    quartiles: tuple[float, float, float] | None
    below_one: float | None
    negative: float | None

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "mean": self.mean, "quartiles": list(self.quartiles) if self.quartiles else None,
                "share_below_1": self.below_one, "share_negative": self.negative}


def tau_summary(taus: Iterable[float | None]) -> TauSummary:
    """Summary of the τ values given (None and NaN left out): τ < 1 is a ranking changed in some pair, τ < 0 one
    reversed more than kept."""
    values = sorted(t for t in taus if t is not None and not math.isnan(t))
    if not values:
        return TauSummary(0, None, None, None, None)
    quartiles = tuple(statistics.quantiles(values, n=4, method="inclusive")) if len(values) > 1 \
        else (values[0],) * 3
    return TauSummary(len(values), sum(values) / len(values), quartiles,  # type: ignore[arg-type]
                      sum(t < 1 for t in values) / len(values), sum(t < 0 for t in values) / len(values))
