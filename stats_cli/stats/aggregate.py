"""One label per item from several annotators: majority, strict, or median.

Nahum et al. (2024, §4.2) aggregate crowd labels two ways — majority vote, and *strict* ("if any
annotator marks it inconsistent, that becomes the label") — and ordinal SummEval ratings by their
median. Elangovan et al. (2026) call the share of annotators behind the majority label p_d and
show scores mean little without it, so every aggregated item carries that share.

Tie rule (documented, deterministic; the one :func:`backend.common.labels.break_tie` that the Label Studio
backend uses too): a majority tie goes to the ``negative`` label when it is one of the tied labels,
otherwise to the first tied label in natural label order; either way the item is marked ``tie``
and lists the tied labels. A median over an even number of ratings whose
two middle values differ is one of the two, never the half-way value (a "3.5" nobody gave would become a
class of its own and a p_d = 0 stratum): the lower one, or the ``negative`` label when it is one of the two,
by the same :func:`break_tie` as majority ties and the Label Studio backend's ``median_label``; marked
``tie`` with both middles in ``tied_labels``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from stats_cli.stats.labels import break_tie, normalize_label
from stats_cli.stats.ratings import RatingsTable

__all__ = ["Method", "AggregatedItem", "aggregate"]

Method = Literal["majority", "strict", "median", "dawid-skene"]


@dataclass(frozen=True)
class AggregatedItem:
    """The aggregated label of one item and the share p_d of its annotators who chose it.

    ``label`` and ``p_d`` are None only for an item without any rating.
    """

    item: str
    label: str | None
    p_d: float | None
    votes: int
    n_ratings: int
    tie: bool = False
    tied_labels: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "label": self.label,
            "p_d": self.p_d,
            "votes": self.votes,
            "n_ratings": self.n_ratings,
            "tie": self.tie,
            "tied_labels": list(self.tied_labels),
        }


def aggregate(table: RatingsTable, *, method: Method = "majority", negative: str | None = None) -> list[AggregatedItem]:
    """Aggregate every item of ``table`` (see the module docstring for the rules).

    Parameters
    ----------
    method : ``majority``, ``strict`` (needs ``negative``), ``median`` (needs numeric labels) or
        ``dawid-skene`` (crowd-kit's EM over annotator confusion matrices; p_d stays the share of
        annotators who gave the chosen label).
    negative : the negative label; decides majority ties and defines ``strict``.
    """
    if method not in ("majority", "strict", "median", "dawid-skene"):
        raise ValueError(f"method must be majority, strict, median or dawid-skene, not {method!r}")
    if method == "dawid-skene":
        return _dawid_skene(table)
    negative = normalize_label(negative) if negative is not None else None
    if method == "strict" and negative is None:
        raise ValueError("strict aggregation needs the negative label (any vote for it wins)")
    if method == "median":
        return _median(table, negative)
    counts = table.counts()
    neg_index = table.categories.index(negative) if negative in table.categories else None
    out = _majority(table, counts, negative)
    if method == "strict" and neg_index is not None:
        n_neg = counts[:, neg_index]
        totals = counts.sum(axis=1)
        for i in np.flatnonzero(n_neg > 0):
            out[i] = AggregatedItem(
                item=table.items[i], label=negative, p_d=float(n_neg[i] / totals[i]),
                votes=int(n_neg[i]), n_ratings=int(totals[i]),
            )
    return out


def _majority(table: RatingsTable, counts: np.ndarray, negative: str | None) -> list[AggregatedItem]:
    if counts.shape[1] == 0:  # no rating anywhere
        return [AggregatedItem(item, None, None, 0, 0) for item in table.items]
    totals = counts.sum(axis=1)
    top = counts.max(axis=1)
    is_top = (counts == top[:, None]) & (top[:, None] > 0)
    out: list[AggregatedItem] = []
    for i, item in enumerate(table.items):
        if totals[i] == 0:
            out.append(AggregatedItem(item, None, None, 0, 0))
            continue
        tied = tuple(table.categories[k] for k in np.flatnonzero(is_top[i]))
        tie = len(tied) > 1
        out.append(AggregatedItem(
            item=item, label=break_tie(tied, negative=negative), p_d=float(top[i] / totals[i]),
            votes=int(top[i]), n_ratings=int(totals[i]), tie=tie, tied_labels=tied if tie else (),
        ))
    return out


def _median(table: RatingsTable, negative: str | None) -> list[AggregatedItem]:
    if not table.categories:  # no rating anywhere
        return [AggregatedItem(item, None, None, 0, 0) for item in table.items]
    if not table.numeric():
        raise ValueError("median aggregation needs numeric labels (e.g. a 1-5 scale)")
    values = table.category_values()
    rated = table.codes >= 0
    matrix = np.where(rated, values[np.clip(table.codes, 0, None)], np.nan)
    n = rated.sum(axis=1)
    ordered = np.sort(matrix, axis=1)  # NaN (missing) sorts last
    out: list[AggregatedItem] = []
    for i, item in enumerate(table.items):
        if n[i] == 0:
            out.append(AggregatedItem(item, None, None, 0, 0))
            continue
        low, high = ordered[i, (n[i] - 1) // 2], ordered[i, n[i] // 2]
        middles = (table.categories[int(np.flatnonzero(values == low)[0])],
                   table.categories[int(np.flatnonzero(values == high)[0])])  # real grades, as spelt
        tie = bool(low != high)
        label = break_tie(list(middles), negative=negative, order=middles) if tie else middles[0]
        votes = int((matrix[i] == values[table.categories.index(label)]).sum())
        out.append(AggregatedItem(
            item=item, label=label, p_d=votes / int(n[i]), votes=votes,
            n_ratings=int(n[i]), tie=tie, tied_labels=middles if tie else (),
        ))
    return out


def _dawid_skene(table: RatingsTable) -> list[AggregatedItem]:
    # heavy: crowdkit (~0.77 s), only for Dawid-Skene; not loaded by audit-stats --help
    from stats_cli.stats.crowd_quality import dawid_skene  # local: crowd-kit is only loaded when asked for

    answers = {item: {table.annotators[j]: table.categories[c] for j, c in enumerate(row) if c >= 0}
               for item, row in zip(table.items, table.codes)}
    labels = dawid_skene(answers).labels
    out = []
    for item, by in answers.items():
        label = labels.get(item)
        votes = sum(v == label for v in by.values())
        out.append(AggregatedItem(item, label, votes / len(by) if by else None, votes, len(by)))
    return out
