"""What the report and `sync-gold` read, whatever it was pulled from: ledger results, review outcomes, crowd labels.

The pull layer (Label Studio SDK + ledger + review and probe stores) fills one :class:`AuditData`;
the report's sections and `sync-gold` are pure functions of it. Tests build it in memory from planted
answers, so everything can be checked without a server. Gold labels are *read* here: the review ledger
stores each item's :class:`~backend.review.outcome.ReviewOutcome`; an item without a stored one (no
review yet, or data built in memory) gets the same :func:`~backend.review.outcome.decide_outcome`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from backend.api import disagrees, label_error
from backend.api import ItemResult
from backend.api import Draw
from backend.api import GoldStatus, ReviewOutcome, answers_after, decide_outcome
from backend.api import TaskSpec


@dataclass(frozen=True)
class ExpertReview:
    """The blind review of one item, as the review store holds it.

    ``round1`` maps each expert to their independent answer; ``round2`` holds the reconciliation
    answers (only items where round 1 disagreed); ``after`` is each expert's label after
    reconciliation (the review store's ``expert_labels(stage="after")``; None = round 1 overridden by a unanimous
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
        return answers_after(self.round1, self.round2)


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
    n_excluded: int = 0  # NonRelP items left out: the member labels them relevant unmodified (seed 003 §3.2.1)
    # The planted-instruction probe (condition "Planted", any single-label task); None on built-in rows.
    success_rate: float | None = None
    ci: tuple[float, float] | None = None
    delta_p_target: float | None = None
    successes: int = 0


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
        The stored review outcomes by item id; items without one get :func:`decide_outcome` on the spot.
    sampled : frozenset of str
        Ids of items drawn by a sampling design (reviewed whatever the ensemble said).
    sample : Draw, optional
        That design as drawn (strata, sizes, drawn items): what the project-wide estimate rests on.
    reviews : mapping
        Item id -> :class:`ExpertReview` for items with at least one expert answer.
    crowd : mapping
        Item id -> annotator -> label: every original annotation, when the source has several per task.
    probes : tuple of ProbeRow
        Latest probe results per member, if any were run.
    models : mapping, optional
        Model name -> item id -> score (probability of the positive class, or a label) from ``--models``.
    ignored_answers : tuple of IgnoredAnswer
        Review annotations not counted (:class:`backend.review.review_store.IgnoredAnswer`: who, item, project).
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
    gold_labels: Mapping[str, ReviewOutcome] | None = None
    sampled: frozenset[str] = frozenset()
    sample: Draw | None = None
    # Annotations in review projects that did not count (not by the project's own expert): reported only.
    ignored_answers: tuple[Any, ...] = ()
    # Thumbnails of the confirmed errors of an image project (stats_cli.sources.error_pictures.ErrorImages); None:
    # not fetched (a project without images, or a pull that did not ask for them).
    error_images: Any = None
    # A control's view of a several-control project: the stratum of the review's draw each item of the
    # control's domain (the items that show it) was in (stats_cli.sources.sample_frame.SampleFrame), so the
    # design estimate is over the domain and cut by the control's own flag; None: the draw's own population.
    sample_frame: Any = None
    # The ids the workers flagged, when ``label-audit audit``'s last pass has since re-read the verdicts (health gate,
    # then the prior correction: backend.ledger.reread); None: the items' verdicts are the workers' own.
    scored_flags: frozenset[str] | None = None
    # What that last pass decided (the summary's health_gate and prior_correction blocks: which reading ``auto``
    # chose and each candidate's agreement); None: no pass recorded (a release before the record, or none ran).
    last_pass: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.sample is not None and not self.sampled:  # the draw names its items
            object.__setattr__(self, "sampled", frozenset(i.task_id for i in self.sample.items))
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

    def is_error(self, item: ItemResult, gold: str | None) -> bool:
        """The item's original label is wrong given ``gold``: the family's disagreement (ordinal: beyond delta)."""
        return label_error(gold, item.original, self.spec)

    @cached_property
    def _outcomes(self) -> dict[str, ReviewOutcome]:
        out = {}
        experts = list(self.experts or sorted({e for r in self.reviews.values() for e in r.round1}))
        for it in self.items:
            key = str(it.id)
            outcome = (self.gold_labels or {}).get(key)
            if outcome is None:
                review = self.reviews.get(key)
                outcome = decide_outcome(it, self.spec, experts=experts, round1=review.round1 if review else None,
                                         round2=review.round2 if review else None,
                                         routed=key in self.routed or key in self.reviews, sampled=key in self.sampled)
            out[key] = outcome
        return out

    def outcome(self, item: ItemResult) -> ReviewOutcome:
        """The item's review outcome (stored by the review, else decided by the same rule)."""
        return self._outcomes[str(item.id)]

    def gold(self, item: ItemResult) -> tuple[str | None, GoldStatus]:
        """``(gold label or None, status)``: Nahum's rule, :func:`backend.review.outcome.decide_outcome`.

        Items the ensemble agrees with keep their label; the rest need the experts. An unsettled item
        has no gold label, and the status says why.
        """
        outcome = self.outcome(item)
        return outcome.gold, outcome.status

    def reviewed(self) -> list[tuple[ItemResult, str]]:
        """Items whose gold label the experts settled, with that label."""
        return [(it, o.gold) for it in self.items for o in [self.outcome(it)]
                if o.status.by_experts and o.gold is not None]
