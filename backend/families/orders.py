"""One question asked in several option orders, each member averaged over the orders: position bias cancelled.

A judge that leans towards the first option (or towards the letter ``A``) answers differently when the
same options come in another order. Asking the question once per order and averaging each member's
distribution over the orders (every order's answer is already keyed by *label*: the letters map back
through the order's own ``answer_tokens``) cancels any preference that depends on position alone; the
ensemble's verdict is then read from the averaged members exactly as the engine reads it from one order.
A pairwise control asks its two responses in both orders (:mod:`backend.families.pairwise`); a single-choice
question can be asked in cyclic rotations of its options.

Each member's *flip* (its top label differs between the orders) is what the report calls that member's
position-bias rate. The per-order verdicts stay in :attr:`ItemResult.questions` (``id`` = the order's
key), so the rate can be read back from the ledger.

Why by hand: the averaging is the ensemble's own (:func:`backend.scoring.ensemble.verdict`); only the
grouping of one member's answers across orders is new here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Mapping, Sequence

from backend.scoring.ensemble import argmax, model_of, verdict
from backend.scoring.results import ErrorInfo, ItemResult, MemberResult, input_hash

if TYPE_CHECKING:
    from backend.task.dataset import Item
    from backend.scoring.ensemble import VerdictRule

__all__ = ["average_members", "merge_orders", "position_flips"]


def average_members(answers: Sequence[ItemResult], labels: Sequence[str]) -> tuple[MemberResult, ...]:
    """One member result per member id: the mean of its distributions over the orders it answered in.

    A member that answered in no order keeps the first order's error. Latency and usage add up (the
    member was called once per order); ``cached`` holds only when every order came from the cache.
    """
    by_id: dict[str, list[MemberResult]] = {}
    for answer in answers:
        for member in answer.members:
            by_id.setdefault(member.member_id, []).append(member)
    merged = []
    for member_id, results in by_id.items():
        ok = [r for r in results if r.probs is not None]
        latency = sum(r.latency_s or 0.0 for r in results) if any(r.latency_s is not None for r in results) else None
        if not ok:
            merged.append(replace(results[0], latency_s=latency))
            continue
        probs = {lab: sum(float(r.probs.get(lab, 0.0)) for r in ok) / len(ok) for lab in labels}  # type: ignore[union-attr]
        masses = [r.raw_mass for r in ok if r.raw_mass is not None]
        merged.append(MemberResult(
            member_id, probs=probs, raw_mass=sum(masses) / len(masses) if masses else None, method=ok[0].method,
            cached=all(r.cached for r in results), latency_s=latency, usage=_usage(ok),
        ))
    return tuple(merged)


def _usage(results: Sequence[MemberResult]) -> Mapping[str, int] | None:
    totals: dict[str, int] = {}
    for r in results:
        for key, value in (r.usage or {}).items():
            if isinstance(value, (int, float)):
                totals[key] = totals.get(key, 0) + int(value)
    return totals or None


def merge_orders(item: "Item", answers: Sequence[ItemResult], *, keys: Sequence[str], rule: "VerdictRule",
                 labels: Sequence[str] | None = None) -> ItemResult:
    """The item's verdict from its per-order verdicts: members averaged over orders, then the ensemble's rule.

    Parameters
    ----------
    item : Item
        The item as asked (its ``original`` is the label value the orders share).
    answers : sequence of ItemResult
        One verdict per order, probabilities keyed by label, same member ids in every order.
    keys : sequence of str
        The orders' keys (``"ab"``, ``"ba"``; ``"o0"``, ``"o1"``...), one per answer: the per-order verdicts
        are kept in :attr:`ItemResult.questions` under them.
    rule : VerdictRule
        Threshold, delta, quorum and the spec whose labels the verdict is over.
    """
    if len(answers) != len(keys) or not answers:
        raise ValueError(f"one answer per order: {len(keys)} orders, {len(answers)} answers")
    labels = tuple(labels or rule.spec.labels)
    members = average_members(answers, labels)
    answered = [m for m in members if m.probs is not None]
    orders = tuple(replace(a, id=key, data={}) for key, a in zip(keys, answers))
    common = dict(id=item.id, original=item.original, members=members, line=item.line, data=item.data,
                  suspicious_text=any(a.suspicious_text for a in answers), input_hash=input_hash(item.fields, item.images),
                  questions=orders)
    decision = verdict([m.probs for m in answered], [model_of(m.member_id) for m in answered], item.original, rule) \
        if answered else None
    if decision is None:
        first = next((a.error for a in answers if a.error is not None), None) or ErrorInfo("no_member_answered")
        return ItemResult(prediction=None, confidence=None, probs=None, flagged=False, error=first, **common)
    return ItemResult(prediction=decision.prediction, confidence=decision.confidence, probs=decision.probs,
                      flagged=decision.flagged, insufficient=decision.insufficient,
                      stopped_early=any(a.stopped_early for a in answers), **common)


def position_flips(result: ItemResult, labels: Sequence[str]) -> dict[str, bool]:
    """Per member id: whether its top label differs between the orders of ``result`` (its position bias).

    Only members that answered in at least two orders count; an item asked in one order gives ``{}``.
    """
    tops: dict[str, set[str]] = {}
    seen: dict[str, int] = {}
    for order in result.questions:
        for member in order.members:
            if member.probs is None:
                continue
            tops.setdefault(member.member_id, set()).add(argmax(member.probs, labels))
            seen[member.member_id] = seen.get(member.member_id, 0) + 1
    return {member_id: len(top) > 1 for member_id, top in tops.items() if seen[member_id] >= 2}
