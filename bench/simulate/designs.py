"""Review designs run against the review store as `review push` / `reconcile` leave it, with experts of known quality.

What `review push` writes is written here through the same stores, without Label Studio: the review projects
(one per expert, and the shared round-2 project), the items routed to review, the assignments, the draw of
the control sample (by the product's own :func:`backend.review.sample_push.draw_for_push`), and the experts'
answers as :func:`backend.review.collect.collect_answers` stores them. The gold labels are then computed by
the product's one writer, :func:`backend.review.gold_store.refresh_gold`.

Designs (``Design.name``):

* ``flagged`` — census of the flagged: every flagged item goes to the experts, no sample.
* ``random`` — the flagged in review plus a random sample of the project (``--sample N --design random``).
* ``stratified`` — the flagged in review (a census stratum) plus the unflagged sampled by confidence band.
* ``control`` — no suspect routed: a stratified control sample only (flagged items sampled like the rest).
* ``round2`` — ``random``, with experts who slip in round 1 (never both on one item); the items they split on
  go to round 2, where they agree on the truth, except a share that stays split (unsettled). A slip is one the
  review catches (an ordinal control: beyond delta): grades within delta are agreement by the family's rule and
  stand for their lower grade, so an expert's one-grade slip is not an error of the report's figures but of
  its premise (correct experts); what it costs is measured apart (docs/statistics.md).
* ``census`` — every item reviewed (a random sample as large as the project): every figure is exact.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping, Sequence

from backend.ledger import Ledger
from backend.review.gold_store import refresh_gold
from backend.review.review_store import (ROUND_RECONCILE, ROUND_REVIEW, SHARED, Answer, ReviewItem, ReviewProject,
                                         ReviewStore)
from backend.review.sample_push import SampleRequest, draw_for_push
from backend.scoring.results import ItemResult
from backend.task.spec import TaskSpec

from .projects import PlantedItem, annotate

__all__ = ["DESIGNS", "Design", "run_review"]

EXPERTS = ("expert.a@sim.test", "expert.b@sim.test")


@dataclass(frozen=True)
class Design:
    """Which items the experts see, how they are drawn, and how often an expert slips in round 1."""

    name: str
    route_flagged: bool = True
    sample: str | None = "random"  # the draw's design, None: no sample
    budget: int = 80
    expert_slip: float = 0.0
    unresolved: float = 0.0  # share of round-2 items where the experts still disagree


DESIGNS: dict[str, Design] = {
    "flagged": Design("flagged", sample=None),
    "random": Design("random"),
    "stratified": Design("stratified", sample="stratified"),
    "control": Design("control", route_flagged=False, sample="stratified"),
    "round2": Design("round2", expert_slip=0.15, unresolved=0.2),
    "census": Design("census", budget=10 ** 6),
}


def _caught(spec: TaskSpec, truth: str, value: str) -> bool:
    """The review catches a slip: every part it changes is one the experts split on (an ordinal control: beyond
    delta; grades within delta are agreement by the family's rule, settled on their lower grade, docs/statistics.md)."""
    disputed = set(spec.task_family.disputed(spec, [truth, value]))
    controls = getattr(spec, "controls", ())
    if not controls:
        return bool(disputed)
    family = spec.task_family
    true, said = family.control_values(spec, truth), family.control_values(spec, value)
    changed = {c.name for c in controls if true.get(c.name) != said.get(c.name)}
    return bool(changed) and changed <= disputed


def _slip(spec: TaskSpec, truth: str, rng: random.Random) -> str:
    """An expert's round-1 slip: another value of each control (the planted annotators' kind of slip) that the
    review catches (:func:`_caught`); none when 50 draws find no such value."""
    for _ in range(50):  # one definition of a slip for annotators and experts
        value = annotate(spec, truth, 0.0, rng)
        if value != truth and _caught(spec, truth, value):
            return value
    return truth


def _store_answers(store: ReviewStore, key: str, project: ReviewProject, answers: Mapping[str, Mapping[str, str]],
                   *, first_id: int) -> None:
    """Store ``{task: {expert: label}}`` as the project's answers, as the review's collector stores them."""
    refs = {a.task_id: a.ref for a in store.assignments(key, round=project.round, expert=project.expert)}
    rows = [(task, email, label) for task, by in answers.items() for email, label in by.items()]
    store.replace_answers(project, [Answer(refs[task], task, project.round, email, first_id + k, label)
                                    for k, (task, email, label) in enumerate(rows)])


def run_review(ledger: Ledger, key: str, spec: TaskSpec, planted: Sequence[PlantedItem], results: Sequence[ItemResult],
               design: Design, rng: random.Random, *, seed: int) -> None:
    """Route, draw, answer (two rounds) and store the gold labels of one project's review."""
    store = ReviewStore(db_engine=ledger.db_engine)
    flagged = [r for r in results if r.flagged and r.prediction is not None]
    routed = {str(r.id) for r in flagged} if design.route_flagged else set()
    chosen = [r for r in flagged if str(r.id) in routed]
    if design.sample is not None:
        request = SampleRequest(size=min(design.budget, len(results)), design=design.sample, seed=seed)
        _draw, _new, extra = draw_for_push(ledger.db_engine, ledger, key, request, in_review=set(routed),
                                           threshold=None)
        chosen += extra
    store.add_items(key, [ReviewItem(str(r.id), k, r.original, r.prediction, r.confidence)
                          for k, r in enumerate(chosen)])
    truth = {p.id: p.truth for p in planted}
    ids = [str(r.id) for r in chosen]
    first: dict[str, dict[str, str]] = {t: {} for t in ids}
    # at most one expert slips on an item (each with probability expert_slip): a slip is always caught by the
    # other expert and settled in round 2, so the gold stays the truth (the report assumes correct experts)
    slipper = {t: int(r // design.expert_slip) if r < 2 * design.expert_slip else None
               for t in ids for r in [rng.random()]}
    for index, email in enumerate(EXPERTS):
        project = ReviewProject(key, ROUND_REVIEW, email, index, 1000 + index, 10 + index)
        store.add_project(project)
        store.assign(key, ids, round=ROUND_REVIEW, expert=email, ls_project_id=project.ls_project_id)
        labels = {t: _slip(spec, truth[t], rng) if slipper[t] == index else truth[t] for t in ids}
        for t, label in labels.items():
            first[t][email] = label
        _store_answers(store, key, project, {t: {email: label} for t, label in labels.items()},
                       first_id=100_000 * (index + 1))
    split = [t for t in ids if len(set(first[t].values())) > 1]
    if split:
        shared = ReviewProject(key, ROUND_RECONCILE, SHARED, None, None, 99)
        store.add_project(shared)
        store.assign(key, split, round=ROUND_RECONCILE, expert=SHARED, ls_project_id=shared.ls_project_id)
        second = {}
        for t in split:
            if rng.random() < design.unresolved:
                second[t] = dict(first[t])  # each keeps their round-1 answer: still split
            else:
                second[t] = {email: truth[t] for email in EXPERTS}
        _store_answers(store, key, shared, second, first_id=900_000)
    refresh_gold(store, results, spec, source_project=key)
