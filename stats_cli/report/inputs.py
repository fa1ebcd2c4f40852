"""What the report reads, whatever it was pulled from: ledger results, expert reviews, crowd labels.

The pull layer (Label Studio SDK + ledger + review and probe stores) fills one :class:`AuditData`;
the sections are pure functions of it. Tests build it in memory from planted answers, so every
section can be checked without a server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from backend.ensemble import disagrees
from backend.results import ItemResult
from backend.review.gold import FINAL, NOT_SCORED, UNRESOLVED, gold_label
from backend.review.store import GoldLabel
from backend.taskspec import TaskSpec

#: Where an item's gold label came from (the ``source`` column of `sync-gold`).
GOLD_ENSEMBLE_AGREES = "ensemble agrees with original"
GOLD_EXPERTS = "experts"
GOLD_PENDING = "pending review"
GOLD_UNRESOLVED = "experts still disagree"
GOLD_NOT_REVIEWED = "not reviewed"
GOLD_NOT_SCORED = "no ensemble verdict"


@dataclass(frozen=True)
class ExpertReview:
    """The blind review of one item, as H5's review store holds it.

    ``round1`` maps each expert to their independent answer; ``round2`` holds the reconciliation
    answers (only items where round 1 disagreed); ``after`` is each expert's label after
    reconciliation (H5's ``expert_labels(stage="after")``; None = round 1 overridden by a unanimous
    round 2).
    """

    item_id: str
    round1: Mapping[str, str | None] = field(default_factory=dict)
    round2: Mapping[str, str | None] = field(default_factory=dict)
    after: Mapping[str, str | None] | None = None

    @property
    def split(self) -> bool:
        """The experts gave different answers in round 1."""
        return len({v for v in self.round1.values()}) > 1

    @property
    def final_answers(self) -> dict[str, str | None]:
        """Each expert's last word (see ``after``)."""
        if self.after is not None:
            return dict(self.after)
        agreed = {v for v in self.round2.values() if v is not None}
        if self.round2 and len(agreed) == 1:
            return {e: next(iter(agreed)) for e in self.round1}
        return dict(self.round1)


@dataclass(frozen=True)
class ProbeRow:
    """One member's latest gullibility-probe score in one condition (lower MAE is better)."""

    member_id: str
    condition: str
    n: int
    mae: float | None
    share_positive: float | None = None
    delta_mae: float | None = None
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
    experts : tuple of str
        The round-1 experts (default: everyone who answered in round 1).
    gold_labels : mapping, optional
        H5's stored gold labels by item id; items without one get :func:`gold_label` on the spot.
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
    experts: tuple[str, ...] = ()
    gold_labels: Mapping[str, GoldLabel] | None = None

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

    @cached_property
    def _gold(self) -> dict[str, tuple[str | None, str]]:
        out = {}
        experts = list(self.experts or sorted({e for r in self.reviews.values() for e in r.round1}))
        for it in self.items:
            key = str(it.id)
            label = (self.gold_labels or {}).get(key)
            if label is None:
                review = self.reviews.get(key)
                label = gold_label(it, self.spec, experts=experts, round1=review.round1 if review else None,
                                   round2=review.round2 if review else None)
            out[key] = (label.gold, self._source(key, label))
        return out

    def _source(self, key: str, label: GoldLabel) -> str:
        if label.status == FINAL:
            return GOLD_ENSEMBLE_AGREES if label.decided_by == "original" else GOLD_EXPERTS
        if label.status == UNRESOLVED:
            return GOLD_UNRESOLVED
        if label.status == NOT_SCORED:
            return GOLD_NOT_SCORED
        return GOLD_PENDING if (key in self.routed or key in self.reviews) else GOLD_NOT_REVIEWED

    def gold(self, item: ItemResult) -> tuple[str | None, str]:
        """``(gold label or None, source)`` by H5's rule (:func:`backend.review.gold.gold_label`).

        Nahum et al.: items the ensemble agrees with keep their label; the rest need the experts.
        An unsettled item has no gold label, and the source says why.
        """
        return self._gold[str(item.id)]

    def reviewed(self) -> list[tuple[ItemResult, str]]:
        """Items whose gold label the experts settled, with that label."""
        return [(it, g) for it in self.items for g, src in [self.gold(it)] if src == GOLD_EXPERTS and g is not None]
