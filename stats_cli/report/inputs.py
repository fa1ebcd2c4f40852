"""What the report reads, whatever it was pulled from: ledger results, expert reviews, crowd labels.

The pull layer (Label Studio SDK + ledger + review and probe stores) fills one :class:`AuditData`;
the sections are pure functions of it. Tests build it in memory from planted answers, so every
section can be checked without a server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from backend.ensemble import disagrees
from backend.results import ItemResult
from backend.taskspec import TaskSpec

#: Where an item's gold label came from (the ``source`` column of `sync-gold`).
GOLD_ENSEMBLE_AGREES = "ensemble agrees with original"
GOLD_EXPERTS = "experts"
GOLD_PENDING = "pending review"
GOLD_NOT_REVIEWED = "not reviewed"


@dataclass(frozen=True)
class ExpertReview:
    """The blind review of one item.

    ``round1`` maps each expert to their independent answer; ``round2`` holds the answers given in
    reconciliation (only items where round 1 disagreed); ``gold`` is the settled label, or None
    while the review is still open.
    """

    item_id: str
    round1: Mapping[str, str] = field(default_factory=dict)
    round2: Mapping[str, str] = field(default_factory=dict)
    gold: str | None = None

    @property
    def final_answers(self) -> dict[str, str]:
        """Each expert's last word: round 2 where given, else round 1."""
        return {**dict(self.round1), **dict(self.round2)}


@dataclass(frozen=True)
class ProbeRow:
    """One member's latest gullibility-probe score in one condition (lower MAE is better)."""

    member_id: str
    condition: str
    n: int
    mae: float | None
    detail: str = ""


@dataclass(frozen=True)
class AuditData:
    """Everything one report is computed from.

    Parameters
    ----------
    project : str
        Source project id (or file name).
    spec : TaskSpec
        Labels, family and class order of the task.
    items : tuple of ItemResult
        The ensemble's verdict on every audited item (ledger rows).
    routed : frozenset of str
        Ids of items sent to expert review (round 1).
    reviews : mapping
        Item id -> :class:`ExpertReview` for items with at least one expert answer.
    crowd : mapping
        Item id -> annotator -> label: every original annotation, when the source has several per task.
    probes : tuple of ProbeRow
        Latest probe results per member, if any were run.
    models : mapping, optional
        Model name -> item id -> score (probability of the positive class, or a label) from ``--models``.
    """

    project: str
    spec: TaskSpec
    items: tuple[ItemResult, ...]
    routed: frozenset[str] = frozenset()
    reviews: Mapping[str, ExpertReview] = field(default_factory=dict)
    crowd: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    probes: tuple[ProbeRow, ...] = ()
    models: Mapping[str, Mapping[str, Any]] | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        ids = [str(it.id) for it in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("item ids must be unique within a project")
        unknown = set(self.reviews) - set(ids)
        if unknown:
            raise ValueError(f"reviews for items that were not audited: {sorted(unknown)[:5]}")

    @property
    def scored(self) -> tuple[ItemResult, ...]:
        """Items the ensemble produced a verdict for, with an original label to compare to."""
        return tuple(it for it in self.items if it.prediction is not None and it.original is not None)

    def disagrees(self, item: ItemResult) -> bool:
        """The ensemble's label differs from the original (ordinal: by more than one class)."""
        return item.prediction is not None and disagrees(item.prediction, item.original, self.spec)

    def gold(self, item: ItemResult) -> tuple[str | None, str]:
        """``(gold label or None, source)``: experts' decision, else the original when the ensemble agrees.

        This is Nahum et al.'s rule: items the ensemble agrees with keep their label; the rest need
        an expert. An unsettled item has no gold label, and the source says why.
        """
        review = self.reviews.get(str(item.id))
        if review is not None and review.gold is not None:
            return review.gold, GOLD_EXPERTS
        if item.prediction is not None and item.original is not None and not self.disagrees(item):
            return item.original, GOLD_ENSEMBLE_AGREES
        if str(item.id) in self.routed or review is not None:
            return None, GOLD_PENDING
        return None, GOLD_NOT_REVIEWED

    def reviewed(self) -> list[tuple[ItemResult, str]]:
        """Items with a settled expert decision, with that decision."""
        out = []
        for it in self.items:
            review = self.reviews.get(str(it.id))
            if review is not None and review.gold is not None:
                out.append((it, review.gold))
        return out
