"""The review outcome of one item: the one place that decides its gold label and says where it came from.

Nahum et al. 2024 (§4.2): the gold label is the original label where the ensemble agrees with it, else
the experts' resolution — their round-2 (reconciliation) consensus where there was a round 2, else their
unanimous round-1 answer. Everything else is not settled yet, and the status says why. The review
ledger stores this outcome; the report and `sync-gold` only read it, and the renderers turn the status
into words. Changing the gold rule means editing :func:`decide_outcome` and nothing else.

A *sampled* item (a control drawn by a sampling design, reviewed whatever the ensemble said) is settled
by the experts even where the ensemble agrees with the original: that is what makes the sample measure
the error rate among unflagged items.

An expert of a review pushed with ``--ambiguous-choice`` may answer :data:`AMBIGUOUS_ANSWER` ("more than one
answer may be right"): when every round-1 expert gave it, or round 2 agrees on it, the item is
``EXPERTS_AMBIGUOUS``: reviewed, no gold label (nothing to correct, nothing for ``sync-gold`` to write). One
expert giving it and another a label is a split like any other, settled in round 2.

A family whose item has several parts applies the rule per part (:meth:`TaskFamily.gold`,
:meth:`TaskFamily.reconciled`): multi-label keeps the original of each label the ensemble agrees with and
the experts' answer on the others, and after round 2 takes the round-1 answer on the labels every expert
gave alike and the reconciled answer on the labels they split on.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Mapping, Sequence

from backend.scoring.ensemble import disagrees
from backend.scoring.results import ItemResult
from backend.task.spec import TaskSpec

__all__ = ["AMBIGUOUS_ANSWER", "GoldStatus", "ReviewOutcome", "consensus", "decide_outcome", "answers_after", "experts_split"]

#: The stored answer of the review's opt-in "More than one answer may be right" choice (the alias of that
#: ``<Choice>``): reserved, never a project's label (a project label equal to it is refused at push).
AMBIGUOUS_ANSWER = "label-audit:more-than-one"


class GoldStatus(str, Enum):
    """Where an item's gold label comes from, or why it has none (the value is what the ledger stores)."""

    AGREED_WITH_ENSEMBLE = "agreed_with_ensemble"  # original kept: the ensemble agrees with it
    EXPERTS_AGREE = "experts_agree"  # every round-1 expert gave the same answer
    RECONCILED = "reconciled"  # the round-2 answers agree
    SPLIT_UNRESOLVED = "split_unresolved"  # the experts still disagree after reconciliation
    EXPERTS_AMBIGUOUS = "experts_ambiguous"  # the experts agree more than one answer may be right: no gold
    PENDING = "pending"  # sent to review, not settled yet
    NOT_REVIEWED = "not_reviewed"  # needs the experts, never sent to them
    NOT_SCORED = "not_scored"  # no ensemble verdict (an error, or not scored yet)

    @property
    def settled(self) -> bool:
        """The item has a gold label."""
        return self in _SETTLED

    @property
    def by_experts(self) -> bool:
        """The gold label is the experts' decision (round 1 or round 2)."""
        return self in (GoldStatus.EXPERTS_AGREE, GoldStatus.RECONCILED)

    @property
    def decided_by(self) -> str | None:
        """The legacy ``decided_by`` column: ``original``, ``experts_round1``, ``experts_round2`` or None."""
        return _DECIDED_BY.get(self)

    @classmethod
    def from_stored(cls, status: str, decided_by: str | None = None) -> "GoldStatus":
        """Read a stored status, including rows written before the statuses carried their source."""
        try:
            return cls(status)
        except ValueError:
            pass
        if status == "final":
            return {v: k for k, v in _DECIDED_BY.items()}.get(decided_by or "", cls.EXPERTS_AGREE)
        return {"unresolved": cls.SPLIT_UNRESOLVED, "not_scored": cls.NOT_SCORED}.get(status, cls.PENDING)


_SETTLED = frozenset({GoldStatus.AGREED_WITH_ENSEMBLE, GoldStatus.EXPERTS_AGREE, GoldStatus.RECONCILED})
_DECIDED_BY = {
    GoldStatus.AGREED_WITH_ENSEMBLE: "original",
    GoldStatus.EXPERTS_AGREE: "experts_round1",
    GoldStatus.RECONCILED: "experts_round2",
}


@dataclass(frozen=True)
class ReviewOutcome:
    """One item's outcome; ``gold`` is None unless ``status.settled``."""

    task_id: str
    original: str | None
    prediction: str | None
    confidence: float | None
    gold: str | None
    status: GoldStatus

    def __post_init__(self) -> None:
        if (self.gold is not None) != self.status.settled:
            raise ValueError(f"gold {self.gold!r} does not fit status {self.status.value}")

    @property
    def decided_by(self) -> str | None:
        return self.status.decided_by

    def to_json(self) -> dict[str, object]:
        return {"task_id": self.task_id, "original": self.original, "prediction": self.prediction,
                "confidence": self.confidence, "gold": self.gold, "status": self.status.value,
                "decided_by": self.decided_by}


def consensus(answers: Sequence[str | None]) -> str | None:
    """The one label every answer gave, or None (no answers, an empty answer, or a disagreement)."""
    distinct = set(answers)
    if len(distinct) == 1 and None not in distinct:
        return next(iter(distinct))
    return None


def experts_split(spec: TaskSpec, answers: Sequence[str], *, delta: int | None = None) -> bool:
    """The experts' answers split on some part (the family's rule: a composite, per control; ordinal controls
    by more than their delta), so round 2 must settle it."""
    if len(answers) < 2:
        return False
    return bool(spec.task_family.disputed(spec, list(answers), delta=delta))


def answers_after(
    round1: Mapping[str, str | None], round2: Mapping[str, str | None], *, experts: Sequence[str] | None = None
) -> dict[str, str | None]:
    """Each expert's last word: their own round-2 answer, else the round-2 consensus, else their round-1 answer.

    ``experts`` are the round-1 experts (default the keys of ``round1``); round-2 answers of anybody
    else are left out (agreement "after reconciliation" compares the round-1 experts).
    """
    names = list(round1 if experts is None else experts)
    agreed = consensus(list(round2.values())) if round2 else None
    out = dict(round1)
    if agreed is not None:
        out.update({name: agreed for name in names})
    out.update({name: label for name, label in round2.items() if name in names})
    return out


def decide_outcome(
    result: ItemResult,
    spec: TaskSpec,
    *,
    experts: Sequence[str],
    round1: Mapping[str, str | None] | None = None,
    round2: Mapping[str, str | None] | None = None,
    routed: bool = False,
    sampled: bool = False,
    delta: int | None = None,
) -> ReviewOutcome:
    """Decide one item's gold label and its status.

    Parameters
    ----------
    result : ItemResult
        The ensemble's verdict (``original``, ``prediction``).
    spec : TaskSpec
        The ensemble agrees when :func:`backend.scoring.ensemble.disagrees` says it does not: the task's flag
        rule (``delta`` and/or boundary; ``delta`` overrides the distance), without its threshold.
    experts : sequence of str
        The round-1 experts; a round-1 resolution needs an answer from each of them.
    round1, round2 : mapping of expert -> label, optional
        The answers read back from Label Studio (None when the item was not in that round).
    routed : bool
        The item was sent to review (an unsettled item is then ``PENDING``, else ``NOT_REVIEWED``).
    sampled : bool
        The item is a control of a sampling design: the experts decide it even where the ensemble agrees.
    """

    def made(gold: str | None, status: GoldStatus) -> ReviewOutcome:
        return ReviewOutcome(str(result.id), result.original, result.prediction, result.confidence, gold, status)

    if result.prediction is None or result.error:
        return made(None, GoldStatus.NOT_SCORED)
    family = spec.task_family
    original = spec.normalize_label(result.original)
    if not sampled and original is not None and not disagrees(result.prediction, original, spec, delta=delta):
        return made(original, GoldStatus.AGREED_WITH_ENSEMBLE)

    def gold(resolution: str) -> str:  # per part (multi-label: per label) where the ensemble agrees: the original
        if sampled or original is None:
            return resolution
        return family.gold(spec, original=original, prediction=result.prediction, resolution=resolution,
                           asked=result.questions)

    firsts = [round1[e] for e in experts if e in round1 and round1[e] is not None] if round1 else []
    if round2:
        # each round-2 answer read on the parts round 2 settles (a composite: the disputed controls), so an
        # expert who also re-answers a part settled in round 1 does not split the item
        settled = [None if a is None else family.reconciled(spec, firsts, a) for a in round2.values()]
        agreed = consensus(settled)
        if agreed is None:
            return made(None, GoldStatus.SPLIT_UNRESOLVED)
        if agreed == AMBIGUOUS_ANSWER:
            return made(None, GoldStatus.EXPERTS_AMBIGUOUS)
        return made(gold(agreed), GoldStatus.RECONCILED)
    if round1 and experts and all(e in round1 for e in experts):
        answers = [round1[e] for e in experts]
        if None not in answers and set(answers) == {AMBIGUOUS_ANSWER}:
            return made(None, GoldStatus.EXPERTS_AMBIGUOUS)
        if None not in answers and not experts_split(spec, answers, delta=delta):  # type: ignore[arg-type]
            return made(gold(family.reconciled(spec, answers, answers[0])), GoldStatus.EXPERTS_AGREE)  # type: ignore[arg-type]
    waiting = routed or sampled or bool(round1)
    return made(None, GoldStatus.PENDING if waiting else GoldStatus.NOT_REVIEWED)
