"""Progress of a review: per expert and round, plus where the gold labels stand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backend.review.reconcile import split_round1
from backend.review.store import ROUND_RECONCILE, ReviewStore


@dataclass(frozen=True)
class ExpertProgress:
    name: str  # "Expert A"... or "Reconciliation"
    expert: str  # email ("" for the reconciliation project)
    round: int
    project: int
    tasks: int
    answered: int


@dataclass
class ReviewStatus:
    source_project: str
    items: int = 0
    progress: list[ExpertProgress] = field(default_factory=list)
    round1: dict[str, int] = field(default_factory=dict)  # disagreed / agreed / incomplete
    round2_answers: dict[str, int] = field(default_factory=dict)  # expert -> answered items
    gold: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_project": self.source_project,
            "items": self.items,
            "progress": [p.__dict__ for p in self.progress],
            "round1": dict(self.round1),
            "round2_answers": dict(self.round2_answers),
            "gold": dict(self.gold),
        }


def review_status(store: ReviewStore, source_key: str) -> ReviewStatus:
    """Summarise the stored review (collect answers first for fresh numbers)."""
    status = ReviewStatus(source_project=source_key, items=len(store.items(source_key)))
    answered_refs = {a.ref for a in store.answers(source_key) if a.label is not None}
    for project in store.projects(source_key):
        assigned = [a for a in store.assignments(source_key, round=project.round, expert=project.expert)
                    if a.ls_task_id is not None]
        status.progress.append(
            ExpertProgress(
                name=project.display_name, expert=project.expert, round=project.round,
                project=project.ls_project_id, tasks=len(assigned),
                answered=sum(1 for a in assigned if a.ref in answered_refs),
            )
        )
    if status.items:
        disagreed, agreed, incomplete = split_round1(store, source_key)
        status.round1 = {"disagreed": len(disagreed), "agreed": len(agreed), "incomplete": len(incomplete)}
    for by in store.answers_by_task(source_key, round=ROUND_RECONCILE).values():
        for expert, label in by.items():
            if label is not None:
                status.round2_answers[expert] = status.round2_answers.get(expert, 0) + 1
    status.gold = store.gold_counts(source_key)
    return status

