"""Preference pairs (left / right, perhaps tie): agreement with and without ties, position bias, reversals.

Preference data is where label noise is largest (MT-Bench's human–human agreement is 63 % with ties, 81 %
without), and the two figures say different things: *with ties* a tie is an answer like any other and two
raters agree only when they give the same one; *without ties* counts only the rater pairs where neither
said tie, so it measures agreement on which response is better once both took a side. As MT-Bench defines
it (Zheng et al. 2023, per question), agreement is computed within each item (the share of its rater pairs
that agree) and then averaged over items, so an item with five raters weighs as much as one with two. Ties
are the raters' own answers; an LLM judge's answer here is its order-averaged verdict, whereas MT-Bench
turns a judge that changes its answer when the responses swap places into a tie: the figures are not
MT-Bench's on that point (the position-bias table says how often it happens). A judge's *position bias* is
how often its top answer changes when the two responses swap places (asked in both orders,
:mod:`backend.families.orders`) and, beside it, how often it prefers the response *shown first* (which side
the bias favours: 0.5 is none); the *reversal* share is how often the ensemble prefers the other response
than the original annotation did. Shares carry a Clopper-Pearson interval
(:func:`stats_cli.stats.bounds.clopper_pearson`); a per-item mean over items with several rater pairs a
percentile bootstrap over items (scipy). Counting is hand-written: no library counts preference pairs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from scipy.stats import bootstrap

from stats_cli.stats.bounds import clopper_pearson

__all__ = ["LEFT", "RIGHT", "TIE", "FIRST_SHOWN", "Share", "ItemMean", "PairAgreement", "Reversals", "pair_agreement",
           "position_bias", "first_position", "reversals"]

LEFT, RIGHT, TIE = "left", "right", "tie"
#: The response shown first in each order a pairwise control is asked in (``backend.families.pairwise.ORDERS``:
#: "ab" shows the left response first, "ba" the right one).
FIRST_SHOWN = {"ab": LEFT, "ba": RIGHT}


@dataclass(frozen=True)
class Share:
    """``k`` of ``n`` with its exact 95 % interval; ``value``/``low``/``high`` are None when ``n`` is 0."""

    k: int
    n: int

    def __post_init__(self) -> None:
        if not 0 <= self.k <= self.n:
            raise ValueError(f"need 0 <= k <= n, got k={self.k}, n={self.n}")

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float | None, float | None]:
        return clopper_pearson(self.k, self.n) if self.n else (None, None)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {"k": self.k, "n": self.n, "value": self.value, "low": low, "high": high}


@dataclass(frozen=True)
class ItemMean:
    """The mean over items of each item's share of agreeing rater pairs.

    ``k`` agreeing pairs of ``n`` pairs over ``items`` items (the counts the mean rests on). The interval is
    Clopper-Pearson when every item has one pair (each share is 0 or 1, the mean is k/n), else a 95 %
    percentile bootstrap over items (pairs of one item are not independent; items are).
    """

    items: int
    k: int
    n: int
    shares: tuple[float, ...] = ()

    @property
    def value(self) -> float | None:
        return float(np.mean(self.shares)) if self.shares else None

    @property
    def interval(self) -> tuple[float | None, float | None]:
        if not self.shares:
            return None, None
        if self.n == self.items:
            return clopper_pearson(self.k, self.n)
        data = np.asarray(self.shares)
        if np.ptp(data) == 0:
            return float(data[0]), float(data[0])
        result = bootstrap((data,), np.mean, n_resamples=2000, method="percentile", confidence_level=0.95,
                           random_state=np.random.default_rng(0))
        return float(result.confidence_interval.low), float(result.confidence_interval.high)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {"items": self.items, "k": self.k, "n": self.n, "value": self.value, "low": low, "high": high}


@dataclass(frozen=True)
class PairAgreement:
    """Agreement between raters on preference pairs: per item over its rater pairs, then averaged over items.

    ``with_ties``: agreeing rater pairs among an item's rater pairs (a tie matches only a tie).
    ``without_ties``: the same among the pairs where neither answer is a tie (items where every pair has a
    tie are left out of that mean). ``tie_pairs``: rater pairs where at least one said tie (the ones
    ``without_ties`` leaves out).
    """

    items: int
    with_ties: ItemMean
    without_ties: ItemMean
    tie_pairs: int

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "with_ties": self.with_ties.to_json(),
                "without_ties": self.without_ties.to_json(), "tie_pairs": self.tie_pairs}


def pair_agreement(answers: Mapping[str, Mapping[str, str | None]], *, tie: str = TIE) -> PairAgreement:
    """Agreement with and without ties over items with at least two answers (None answers left out)."""
    tie_pairs = 0
    with_ties: list[tuple[int, int]] = []
    without: list[tuple[int, int]] = []
    for by_rater in answers.values():
        given = [a for a in by_rater.values() if a is not None]
        if len(given) < 2:
            continue
        pairs = list(itertools.combinations(given, 2))
        sided = [(a, b) for a, b in pairs if tie not in (a, b)]
        tie_pairs += len(pairs) - len(sided)
        with_ties.append((sum(a == b for a, b in pairs), len(pairs)))
        if sided:
            without.append((sum(a == b for a, b in sided), len(sided)))
    return PairAgreement(len(with_ties), _item_mean(with_ties), _item_mean(without), tie_pairs)


def _item_mean(counts: Sequence[tuple[int, int]]) -> ItemMean:
    return ItemMean(len(counts), sum(k for k, _ in counts), sum(n for _, n in counts),
                    tuple(k / n for k, n in counts))


def position_bias(flips: Iterable[Mapping[str, bool]]) -> dict[str, Share]:
    """Per member: items whose top answer changed with the order, among the items it answered in both.

    ``flips`` holds one mapping per item, member id -> flipped (what
    :func:`backend.families.orders.position_flips` gives); members are returned in first-seen order.
    """
    counts: dict[str, list[int]] = {}
    for item in flips:
        for member, flipped in item.items():
            seen = counts.setdefault(member, [0, 0])
            seen[0] += bool(flipped)
            seen[1] += 1
    return {member: Share(k, n) for member, (k, n) in counts.items()}


def first_position(per_item: Iterable[Mapping[str, Mapping[str, str | None]]], *,
                   first_shown: Mapping[str, str] = FIRST_SHOWN) -> dict[str, Share]:
    """Per member: answers that preferred the response shown first, among its answers that took a side.

    ``per_item`` holds one mapping per item: order key -> member id -> that order's top label (mapped back to
    left / right). A tie, a missing answer or an order outside ``first_shown`` takes no side and is left out.
    0.5 is no lean; the flip rate of :func:`position_bias` says how often the lean changed the answer.
    """
    counts: dict[str, list[int]] = {}
    for orders in per_item:
        for key, tops in orders.items():
            first = first_shown.get(key)
            if first is None:
                continue
            for member, top in tops.items():
                if top not in (LEFT, RIGHT):
                    continue
                seen = counts.setdefault(member, [0, 0])
                seen[0] += top == first
                seen[1] += 1
    return {member: Share(k, n) for member, (k, n) in counts.items()}


@dataclass(frozen=True)
class Reversals:
    """The ensemble's preference against the original one, over items with both.

    ``reversed``: left <-> right among the items whose original took a side (the ensemble prefers the
    other response). ``to_tie``: the original took a side and the ensemble calls it a tie; ``from_tie``:
    the original is a tie and the ensemble took a side (neither is a reversal: no preference was turned
    round).
    """

    items: int
    reversed: Share
    to_tie: int
    from_tie: int

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "reversed": self.reversed.to_json(), "to_tie": self.to_tie,
                "from_tie": self.from_tie}


def reversals(pairs: Sequence[tuple[str | None, str | None]], *, sides: tuple[str, str] = (LEFT, RIGHT),
              tie: str = TIE) -> Reversals:
    """Count (original, prediction) pairs; a pair with either missing or outside the labels is left out."""
    known = {*sides, tie}
    usable = [(o, p) for o, p in pairs if o in known and p in known]
    sided = [(o, p) for o, p in usable if o != tie]
    turned = sum(1 for o, p in sided if p != tie and p != o)
    return Reversals(items=len(usable), reversed=Share(turned, len(sided)),
                     to_tie=sum(1 for _, p in sided if p == tie),
                     from_tie=sum(1 for o, p in usable if o == tie and p != tie))
