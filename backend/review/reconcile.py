"""Round 2: a reconciliation project holding only the items the experts disagreed on.

Each task shows the inputs and every expert's round-1 answer as "Expert A: ...", "Expert B: ..."
(never the original label nor the ensemble's), so the experts can discuss and settle it (Nahum et
al. App. C.2). Every expert may record their post-discussion answer; the item is resolved when the
round-2 answers agree. A review whose round 1 offered "More than one answer may be right" offers it
here too (stored with the round-1 projects, :mod:`backend.review.ambiguous`). Re-running adds newly found disagreements only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from label_studio_sdk import LabelStudio

from backend.labelstudio.client import create_project, ensure_user, organization_id
from backend.labelstudio.expert_instances import ReviewClients, as_review_clients
from backend.labelstudio.labelconfig import expert_name
from backend.review.collect import collect_answers
from backend.review.outcome import experts_split
from backend.review.round1_text import round1_text
from backend.review.images import ReviewImages, prepare_or_pass, reuse_round1_copies
from backend.review.expert_tasks import blind_inputs, import_assignments, recover_task_ids, sign_up_expert
from backend.review.push import BLIND_SETTINGS, TITLE_MAX
from backend.review.source import SourceProject, fetch_inputs
from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW, SHARED, ReviewProject, ReviewStore
from backend.task.spec import TaskSpec


class RoundIncomplete(ValueError):
    """Round 1 still has unanswered tasks (pass ``partial=True`` to reconcile what is complete)."""


@dataclass
class ReconcileReport:
    source_project: int
    project: int | None = None
    disagreements: int = 0
    agreed: int = 0
    incomplete: int = 0
    new_tasks: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    url: str | None = None  # where the lead opens the reconciliation project
    passwords: dict[str, str] = field(default_factory=dict)  # experts signed up now on the shared instance
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_project": self.source_project, "round": ROUND_RECONCILE, "project": self.project, "url": self.url,
            "disagreements": self.disagreements, "agreed": self.agreed, "incomplete": self.incomplete,
            "new_tasks": self.new_tasks, "errors": dict(self.errors), "passwords": dict(self.passwords),
            "warnings": list(self.warnings),
        }


def split_round1(store: ReviewStore, source_key: str, *, spec: TaskSpec | None = None
                 ) -> tuple[list[str], list[str], list[str]]:
    """Reviewed items as (disagreed, agreed, incomplete) task ids, in push order.

    With ``spec`` the family says what a split is (a composite: any control split; an ordinal control: by
    more than its delta); without it, any difference.
    """
    experts = store.experts(source_key)
    answers = store.answers_by_task(source_key, round=ROUND_REVIEW)
    disagreed, agreed, incomplete = [], [], []
    for item in store.items(source_key):
        got = answers.get(item.task_id, {})
        if not experts or any(e not in got or got[e] is None for e in experts):
            incomplete.append(item.task_id)
        elif experts_split(spec, [got[e] for e in experts]) if spec is not None else len({got[e] for e in experts}) > 1:
            disagreed.append(item.task_id)
        else:
            agreed.append(item.task_id)
    return disagreed, agreed, incomplete


def _reconcile_project(client: LabelStudio, store: ReviewStore, source: SourceProject, n_experts: int) -> ReviewProject:
    found = store.projects(source.key, round=ROUND_RECONCILE)
    if found:
        return found[0]
    settings = {**BLIND_SETTINGS, "maximum_annotations": n_experts}
    project_id = create_project(
        client,
        title=("Reconciliation · " + " / ".join(expert_name(i) for i in range(n_experts)))[:TITLE_MAX],
        label_config=source.reconcile_config(n_experts, ambiguous_choice=bool(store.ambiguous_choice(source.key))),
        description="Items the experts labelled differently: discuss, then record the agreed label.",
        **settings,
    )
    project = ReviewProject(source.key, ROUND_RECONCILE, SHARED, None, None, project_id)
    store.add_project(project)
    return project


def reconcile(
    client: LabelStudio, store: ReviewStore, source: SourceProject, *, partial: bool = False,
    review_client: LabelStudio | ReviewClients | None = None, initial_passwords: bool = False,
    settings: Any = None, seed: int = 0,
) -> ReconcileReport:
    """Collect round-1 answers and put every disagreement into the reconciliation project.

    ``client`` reads the source items' inputs; ``review_client`` (default ``client``) holds the review:
    round 1 is read on each expert's instance, the reconciliation project goes to the shared one, where
    every expert gets an account (both experts' answers are meant to be shown there). An account made
    there has no password, unless ``initial_passwords`` signs each expert without one up through a
    one-use invite link with a random password (``report.passwords``), as ``review push`` does on their
    own instances.
    Each task holds its family's blind copy of the inputs, seeded by ``seed`` and the task id
    (:func:`backend.review.expert_tasks.blind_inputs`: a ranking's list shuffled, never in the original ranking).

    Raises
    ------
    RoundIncomplete
        When some round-1 task is unanswered and ``partial`` is False.
    ValueError
        When nothing was pushed for review, or only one expert reviewed.
    """
    experts = store.experts(source.key)
    if not experts:
        raise ValueError(f"project {source.project_id} has no review yet: run `label-audit review push` first")
    if len(experts) < 2:
        raise ValueError("reconciliation needs at least two experts")
    clients = as_review_clients(review_client if review_client is not None else client)
    review = clients.shared
    collect_answers(clients, store, source)
    disagreed, agreed, incomplete = split_round1(store, source.key, spec=source.spec)
    report = ReconcileReport(source.project_id, None, len(disagreed), len(agreed), len(incomplete))
    if incomplete and not partial:
        raise RoundIncomplete(
            f"round 1 is not complete: {len(incomplete)} of {len(store.items(source.key))} items still lack "
            "an answer from every expert (pass --partial to reconcile the complete ones)"
        )
    if not disagreed:
        return report
    project = _reconcile_project(review, store, source, len(experts))
    org_id = organization_id(review)
    for email in experts:
        if initial_passwords:
            sign_up_expert(review, email, passwords=report.passwords, warnings=report.warnings)
        ensure_user(review, email, org_id=org_id)
    report.project = project.ls_project_id
    report.url = clients.project_url(None, project.ls_project_id)
    assigned = store.assignments(source.key, round=ROUND_RECONCILE)
    recover_task_ids(review, store, project.ls_project_id, [a for a in assigned if a.ls_task_id is None])
    unconfirmed = [a for a in store.assignments(source.key, round=ROUND_RECONCILE) if a.ls_task_id is None]
    fresh = store.assign(source.key, disagreed, round=ROUND_RECONCILE, expert=SHARED,
                         ls_project_id=project.ls_project_id)
    todo = unconfirmed + fresh
    inputs, report.errors = fetch_inputs(client, source, [a.task_id for a in todo])
    originals = {i.task_id: i.original for i in store.items(source.key)}
    inputs = blind_inputs(source.spec, inputs, seed=seed, originals=originals)
    answers = store.answers_by_task(source.key, round=ROUND_REVIEW)
    for task_id, data in inputs.items():
        data.update(round1_text(source, experts, answers.get(task_id, {})))
    images = ReviewImages.for_source(client, source.spec, settings=settings)
    if images is not None:  # round 1 on this same instance already holds a copy of each image
        reuse_round1_copies(images, clients, store, source.key, [a.task_id for a in todo])
    data_of, bad = prepare_or_pass(images, inputs, client=review, project_id=project.ls_project_id)
    report.errors.update(bad)
    report.new_tasks = import_assignments(review, store, project.ls_project_id, todo, data_of)
    return report
