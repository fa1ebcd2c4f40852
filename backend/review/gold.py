"""The gold label rule (Nahum et al. 2024, §4.2): original when the ensemble agrees, else the experts.

Where the ensemble disagrees with the original label, the gold label is the experts' resolution: their
round-2 (reconciliation) consensus where there was one, else their unanimous round-1 answer. Anything
not settled yet stays ``pending`` (not reviewed, answers missing, or waiting for reconciliation) or
``unresolved`` (the experts still disagree after reconciliation) — never silently the original.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from backend.ensemble import DEFAULT_DELTA, disagrees
from backend.results import ItemResult
from backend.review.store import GoldLabel, ReviewStore, ROUND_RECONCILE, ROUND_REVIEW
from backend.taskspec import TaskSpec

FINAL, PENDING, UNRESOLVED, NOT_SCORED = "final", "pending", "unresolved", "not_scored"


def _unanimous(labels: Sequence[str | None]) -> str | None:
    """The one label every answer gave, or None (no answers, an empty answer, or a disagreement)."""
    distinct = set(labels)
    if len(distinct) == 1 and None not in distinct:
        return next(iter(distinct))
    return None


def gold_label(
    result: ItemResult,
    spec: TaskSpec,
    *,
    experts: Sequence[str],
    round1: Mapping[str, str | None] | None = None,
    round2: Mapping[str, str | None] | None = None,
    delta: int = DEFAULT_DELTA,
) -> GoldLabel:
    """Decide one item's gold label.

    Parameters
    ----------
    result : ItemResult
        The ensemble's verdict (``original``, ``prediction``).
    spec : TaskSpec
        Binary: the ensemble agrees when prediction == original. Ordinal: when their class
        distance is at most ``delta`` (the flag rule without its confidence threshold).
    experts : sequence of str
        The round-1 experts; a round-1 resolution needs an answer from each of them.
    round1, round2 : mapping of expert -> label, optional
        The answers read back from Label Studio (None when the item was not in that round).
    """

    def made(gold: str | None, decided_by: str | None, status: str) -> GoldLabel:
        return GoldLabel(str(result.id), result.original, result.prediction, result.confidence, gold, decided_by, status)

    if result.prediction is None or result.error:
        return made(None, None, NOT_SCORED)
    original = spec.normalize_label(result.original)
    if original is not None and not disagrees(result.prediction, original, spec, delta=delta):
        return made(original, "original", FINAL)
    if round2:
        agreed = _unanimous(list(round2.values()))
        return made(agreed, "experts_round2", FINAL) if agreed is not None else made(None, None, UNRESOLVED)
    if round1 and experts and all(e in round1 for e in experts):
        agreed = _unanimous([round1[e] for e in experts])
        if agreed is not None:
            return made(agreed, "experts_round1", FINAL)
    return made(None, None, PENDING)


def refresh_gold(
    store: ReviewStore,
    results: Sequence[ItemResult],
    spec: TaskSpec,
    *,
    source_project: str,
    delta: int = DEFAULT_DELTA,
) -> dict[str, int]:
    """Recompute and store the gold label of every scored item; returns counts by status."""
    experts = store.experts(source_project)
    first = store.answers_by_task(source_project, round=ROUND_REVIEW)
    second = store.answers_by_task(source_project, round=ROUND_RECONCILE)
    labels = [
        gold_label(res, spec, experts=experts, round1=first.get(str(res.id)), round2=second.get(str(res.id)),
                   delta=delta)
        for res in results
    ]
    store.set_gold(source_project, labels)
    counts: dict[str, int] = {}
    for lab in labels:
        counts[lab.status] = counts.get(lab.status, 0) + 1
    return counts
