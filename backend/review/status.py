"""Progress of a review: per expert and round, where the gold labels stand, and the control sample's strata.

The sample's progress is shown because its estimates stay PENDING (or wide) until the experts settle
the drawn items: a lead deciding whether to wait needs "settled 41 of 60 in unflagged", not only the
per-expert answer counts, which mix suspects and controls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from backend.review.outcome import ReviewOutcome
from backend.review.reconcile import split_round1
from backend.review.sample_store import SampleStore
from backend.review.sampling import Draw
from backend.review.review_store import ROUND_RECONCILE, IgnoredAnswer, ReviewStore


@dataclass(frozen=True)
class ExpertProgress:
    name: str  # "Expert A"... or "Reconciliation"
    expert: str  # email ("" for the reconciliation project)
    round: int
    project: int
    tasks: int
    answered: int
    url: str | None = None  # where the lead opens the project (None: its instance's URL is unknown)


@dataclass(frozen=True)
class StratumProgress:
    """One stratum of the control sample: its size when drawn, items drawn, items the experts settled."""

    stratum: str
    population: int
    drawn: int
    settled: int


def sample_progress(draw: Draw, outcomes: Iterable[ReviewOutcome]) -> list[StratumProgress]:
    """Per stratum, how many drawn items have an experts' gold label (what the estimates rest on)."""
    settled = {o.task_id for o in outcomes if o.status.by_experts and o.gold is not None}
    drawn = draw.sample_sizes()
    return [StratumProgress(name, population, drawn[name],
                            sum(1 for i in draw.items if i.stratum == name and i.task_id in settled))
            for name, population in sorted(draw.strata.items())]


@dataclass
class ReviewStatus:
    source_project: str
    items: int = 0
    progress: list[ExpertProgress] = field(default_factory=list)
    round1: dict[str, int] = field(default_factory=dict)  # disagreed / agreed / incomplete
    round2_answers: dict[str, int] = field(default_factory=dict)  # expert -> answered items
    gold: dict[str, int] = field(default_factory=dict)
    design: str | None = None  # the control sample's design, None when no sample was drawn
    sample: list[StratumProgress] = field(default_factory=list)
    ignored: list[IgnoredAnswer] = field(default_factory=list)  # annotations that did not count

    def to_json(self) -> dict[str, Any]:
        return {
            "source_project": self.source_project,
            "items": self.items,
            "progress": [p.__dict__ for p in self.progress],
            "round1": dict(self.round1),
            "round2_answers": dict(self.round2_answers),
            "gold": dict(self.gold),
            "ignored": [i.__dict__ for i in self.ignored],
            "sample": None if self.design is None else {
                "design": self.design, "strata": [p.__dict__ for p in self.sample]},
        }


def project_links(store: ReviewStore, source_key: str, clients: Any) -> list[tuple[str, str]]:
    """(who, where) for every review project of the source: its URL on its own instance, else its id.

    What every command that reads review projects prints, so the lead can open each one.
    """
    links = []
    for project in store.projects(source_key):
        url = clients.project_url(project.instance, project.ls_project_id) if clients is not None else None
        links.append((project.display_name, url or f"project {project.ls_project_id} (instance URL unknown)"))
    return links


def review_status(store: ReviewStore, source_key: str, *, clients: Any = None, spec: Any = None) -> ReviewStatus:
    """Summarise the stored review (collect answers first for fresh numbers).

    ``clients`` (:class:`~backend.labelstudio.expert_instances.ReviewClients`) gives each project's URL;
    ``spec`` (the source's) says what a round-1 split is (:func:`backend.review.reconcile.split_round1`).
    """
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
                url=None if clients is None else clients.project_url(project.instance, project.ls_project_id),
            )
        )
    if status.items:
        disagreed, agreed, incomplete = split_round1(store, source_key, spec=spec)
        status.round1 = {"disagreed": len(disagreed), "agreed": len(agreed), "incomplete": len(incomplete)}
    for by in store.answers_by_task(source_key, round=ROUND_RECONCILE).values():
        for expert, label in by.items():
            if label is not None:
                status.round2_answers[expert] = status.round2_answers.get(expert, 0) + 1
    status.gold = store.gold_counts(source_key)
    status.ignored = store.ignored_answers(source_key)
    draw = SampleStore(store.db_engine).draw(source_key)
    if draw is not None:
        status.design = draw.design
        status.sample = sample_progress(draw, store.gold_labels(source_key))
    return status

