"""Policies that skip an item's later option orders, replayed over results scored in every order: no call more.

Why: each order is a full set of calls; where a later order cannot (or is unlikely to) change the flag, skipping
it halves the bill of that item. The replay keeps the full result of items a policy asks again and gives the
others their first order's verdict (:attr:`ItemResult.questions`, as the engine stored it), so detection can be
compared with the full run on the very same answers.

- ``exact``: skip when :func:`backend.scoring.order_skip.skippable` proves the flag (lossless);
- ``margin m``: lossy, ask again only when the first order's confidence against the given label (the largest
  first-order probability of a class that disagrees with it) lies within ``m`` of the threshold: the product's
  own rule (:func:`backend.scoring.order_skip.margin_skippable`, ``LABEL_AUDIT_ORDER_SKIP=margin:m``), imported
  so that the replay and a run with the setting cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from backend.scoring.ensemble import VerdictRule
from backend.scoring.order_skip import margin_skippable, skippable
from backend.scoring.results import ItemResult

__all__ = ["MARGINS", "Replay", "exact_skips", "margin_skips", "replay", "replays"]

#: The lossy rule's margins the bench tries.
MARGINS = (0.1, 0.2, 0.3)

#: ``skips(result, rule)``: True when the policy answers the item from its first order alone.
Policy = Callable[[ItemResult, VerdictRule], bool]


@dataclass(frozen=True)
class Replay:
    """A policy's verdicts (one per item, in order), the share of later-order member calls it saves, and how
    many flags differ from the full run's."""

    results: list[ItemResult]
    saved: float
    flags_differ: int


def exact_skips(result: ItemResult, rule: VerdictRule) -> bool:
    """Skip when no answer of the later orders can change the flag (the exact bound)."""
    first, asked = result.questions[0], {m.member_id for q in result.questions[1:] for m in q.members}
    return skippable(first, [m.member_id for m in first.members], asked, rule, orders=len(result.questions))


def margin_skips(margin: float) -> Policy:
    """Skip unless the first order's confidence against the given label is within ``margin`` of the threshold."""

    def skips(result: ItemResult, rule: VerdictRule) -> bool:
        return margin_skippable(result.questions[0], result.original, rule, margin=margin)

    return skips


def replay(results: Sequence[ItemResult], rule: VerdictRule, skips: Policy) -> Replay:
    """The run as if ``skips`` had decided, per item, whether to ask its later orders."""
    out, saved, total = [], 0, 0
    for result in results:
        later = sum(len(q.members) for q in result.questions[1:])
        total += later
        if len(result.questions) > 1 and skips(result, rule):
            saved += later
            out.append(replace(result.questions[0], id=result.id, questions=()))
        else:
            out.append(result)
    differ = sum(bool(a.flagged) != bool(b.flagged) for a, b in zip(out, results))
    return Replay(out, saved / total if total else 0.0, differ)


def replays(results: Sequence[ItemResult], rule: VerdictRule, margins: Sequence[float] = MARGINS) -> dict[str, Replay]:
    """Every policy the bench prints, by row name."""
    policies: dict[str, Policy] = {"skip exact": exact_skips}
    policies.update({f"skip margin {m:g}": margin_skips(m) for m in margins})
    return {name: replay(results, rule, policy) for name, policy in policies.items()}
