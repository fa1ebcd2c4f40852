"""Preference pairs (left / right, perhaps tie): agreement with and without ties, position bias, reversals.

Preference data is where label noise is largest (MT-Bench's human–human agreement is 63 % with ties, 81 %
without), and the two figures say different things: *with ties* a tie is an answer like any other and two
raters agree only when they give the same one; *without ties* counts only the rater pairs where neither
said tie, so it measures agreement on which response is better once both took a side. Both are printed
with the counts they rest on. A judge's *position bias* is how often its top answer changes when the two
responses swap places (asked in both orders, :mod:`backend.families.orders`); the *reversal* share is how
often the ensemble prefers the other response than the original annotation did. Every share carries a
Clopper-Pearson interval (:func:`stats_cli.stats.bounds.clopper_pearson`). Counting is hand-written: no library
counts preference pairs; the intervals are scipy's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from stats_cli.stats.bounds import clopper_pearson

__all__ = ["LEFT", "RIGHT", "TIE", "Share", "PairAgreement", "Reversals", "pair_agreement", "position_bias",
           "reversals"]

LEFT, RIGHT, TIE = "left", "right", "tie"


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
class PairAgreement:
    """Agreement between raters on preference pairs, counted over rater pairs within each item.

    ``with_ties``: agreeing rater pairs among all rater pairs (a tie matches only a tie). ``without_ties``:
    agreeing pairs among the rater pairs where neither answer is a tie. ``tie_pairs``: rater pairs where at
    least one said tie (the ones ``without_ties`` leaves out). With two raters there is one pair per item,
    so the intervals are over items; with more, pairs of one item are not independent and the interval is
    only indicative.
    """

    items: int
    with_ties: Share
    without_ties: Share
    tie_pairs: int

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "with_ties": self.with_ties.to_json(),
                "without_ties": self.without_ties.to_json(), "tie_pairs": self.tie_pairs}


def pair_agreement(answers: Mapping[str, Mapping[str, str | None]], *, tie: str = TIE) -> PairAgreement:
    """Agreement with and without ties over items with at least two answers (None answers left out)."""
    items = agreed = pairs = agreed_nt = pairs_nt = tie_pairs = 0
    for by_rater in answers.values():
        given = [a for a in by_rater.values() if a is not None]
        if len(given) < 2:
            continue
        items += 1
        for a, b in itertools.combinations(given, 2):
            pairs += 1
            agreed += a == b
            if a == tie or b == tie:
                tie_pairs += 1
                continue
            pairs_nt += 1
            agreed_nt += a == b
    return PairAgreement(items, Share(agreed, pairs), Share(agreed_nt, pairs_nt), tie_pairs)


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
