"""Round 1: copy the flagged items into one blind review project per expert.

Nahum et al. (§4.2, App. C.2): every expert labels every suspect independently, seeing neither the
original label nor the LLM's. In open-source Label Studio any annotator of a project sees the Data
Manager (every column, prediction and other annotation), so blindness is enforced by what is *in*
the project: one project per expert, holding only the inputs and an opaque reference, with no
predictions and no ML backend. Re-running adds what is missing (new items within the budget, new
experts) and never duplicates a task: an import that died half-way is matched back by its refs.

Two clients: ``client`` reads the source project (config, guidelines, inputs) and is never written to;
``review_client`` (a separate instance, see :mod:`backend.labelstudio.instances`) gets the experts'
accounts and projects. The expert view keeps static titles, choice meanings and the guidelines once
they are checked to name no item under review (:mod:`backend.labelstudio.expertview`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from label_studio_sdk import LabelStudio

from backend.labelstudio.client import create_project, ensure_user, find_user, organization_id
from backend.labelstudio.expert_instances import ReviewClients, as_review_clients
from backend.labelstudio.expertview import Guidelines, check_guidelines
from backend.labelstudio.labelconfig import expert_name
from backend.labelstudio.tasks import crowd_by_item
from backend.scoring.ensemble import label_error
from backend.scoring.results import ItemResult
from backend.review.images import ReviewImages, prepare_or_pass
from backend.review.sample_push import SampleRequest, draw_for_push, review_order
from backend.review.source import SourceProject, fetch_inputs, load_audited_source
from backend.review.review_store import ROUND_REVIEW, ReviewItem, ReviewProject, ReviewStore
from backend.review.triage_route import route_suspects
from backend.review.active import control_sample, rank_suspects
from backend.review.sample_store import SampleStore
from backend.review.until_width_push import UntilRequest, until_width_extra
from backend.review.expert_tasks import blind_inputs, import_assignments, recover_task_ids, sign_up_expert

ORDERS = ("confidence", "shuffled")
TITLE_MAX = 50  # Label Studio rejects longer project titles
# Project settings that keep a review project blind and single-annotator.
BLIND_SETTINGS: dict[str, Any] = {
    "show_collab_predictions": False,
    "evaluate_predictions_automatically": False,
    "show_annotation_history": False,
    "show_instruction": False,  # switched on per project when checked guidelines exist
    "maximum_annotations": 1,
    "sampling": "Sequential sampling",
}


@dataclass
class PushReport:
    """What ``review push`` did: review project per expert, tasks created, items skipped and why."""

    source_project: int
    projects: dict[str, int] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)  # where the lead opens each expert's project
    new_tasks: dict[str, int] = field(default_factory=dict)
    items: int = 0
    added: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    guidelines_shown: bool = False
    sampled: int = 0  # drawn control items added by this push
    sample_drawn: bool = False  # the sample was drawn by this push (else it was drawn before)
    passwords: dict[str, str] = field(default_factory=dict, repr=False)  # new experts' initial passwords
    triage: dict[str, Any] = field(default_factory=dict)  # backend.review.triage_route.route_suspects: held items, gaps
    ambiguous_choice: bool = False  # the review offers "More than one answer may be right" (backend.review.ambiguous)
    until_width: dict[str, Any] = field(default_factory=dict)  # --until-width's step (backend.review.until_width_push)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_project": self.source_project,
            "round": ROUND_REVIEW,
            "projects": dict(self.projects),
            "urls": dict(self.urls),
            "new_tasks": dict(self.new_tasks),
            "items": self.items,
            "added": self.added,
            "errors": dict(self.errors),
            "warnings": list(self.warnings),
            "guidelines_shown": self.guidelines_shown,
            "sampled": self.sampled,
            "sample_drawn": self.sample_drawn,
            "passwords": dict(self.passwords),
            "triage": dict(self.triage),
            "ambiguous_choice": self.ambiguous_choice,
            "until_width": dict(self.until_width),
        }


def parse_experts(text: str | Sequence[str]) -> list[str]:
    """``"a@x,b@y"`` -> normalised, de-duplicated emails (ValueError on an empty list or a non-email)."""
    raw = text.split(",") if isinstance(text, str) else list(text)
    experts = list(dict.fromkeys(e.strip().lower() for e in raw if e and e.strip()))
    if not experts:
        raise ValueError("name at least one expert email")
    bad = [e for e in experts if "@" not in e]
    if bad:
        raise ValueError(f"not an email address: {', '.join(bad)}")
    return experts


def check_push_options(experts: str | Sequence[str], *, order: str, budget: int | None) -> list[str]:
    """The parsed experts, or ValueError for a bad option (checked before any request is made)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    if budget is not None and budget < 0:
        raise ValueError("budget must be >= 0")
    return parse_experts(experts)


def _pick_items(
    client: LabelStudio, source: SourceProject, candidates: list[ItemResult], room: int | None
) -> tuple[list[ItemResult], dict[str, dict[str, Any]], dict[str, str]]:
    """The first ``room`` candidates whose inputs can be read (others are skipped with a reason)."""
    chosen: list[ItemResult] = []
    inputs: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    pos = 0
    while pos < len(candidates) and (room is None or len(chosen) < room):
        step = len(candidates) if room is None else max(room - len(chosen), 1)
        batch = candidates[pos:pos + step]
        pos += len(batch)
        got, bad = fetch_inputs(client, source, [str(r.id) for r in batch])
        inputs.update(got)
        errors.update(bad)
        chosen.extend(r for r in batch if str(r.id) in got)
    if room is not None:
        chosen = chosen[:room]
    return chosen, inputs, errors


def _expert_project(
    client: LabelStudio, store: ReviewStore, source: SourceProject, email: str, index: int,
    guidelines: Guidelines, instance: str | None, ambiguous_choice: bool = False,
) -> ReviewProject:
    user_id = ensure_user(client, email, org_id=organization_id(client))
    project_id = create_project(
        client,
        title=f"Review {expert_name(index)} · {email}"[:TITLE_MAX],
        label_config=source.review_config(guidelines.html, ambiguous_choice=ambiguous_choice),
        description="Label each item from its content alone.",
        **{**BLIND_SETTINGS, "expert_instruction": guidelines.html, "show_instruction": bool(guidelines.html)},
    )
    project = ReviewProject(source.key, ROUND_REVIEW, email, index, user_id, project_id, instance, ambiguous_choice)
    store.add_project(project)
    return project


def source_accounts(client: LabelStudio, experts: Sequence[str]) -> list[str]:
    """Warnings for experts who also have an account on the source instance (they could open it)."""
    return [
        f"{email} has an account on the source instance: they can open the source project there"
        for email in experts if find_user(client, email) is not None
    ]


def push_review(
    client: LabelStudio,
    store: ReviewStore,
    ledger: Any,
    *,
    review_client: LabelStudio | ReviewClients | None = None,
    project_id: int,
    experts: Sequence[str],
    threshold: float | None = None,
    budget: int | None = None,
    order: str = "confidence",
    seed: int = 0,
    label_field: str | None = None,
    sample: SampleRequest | None = None,
    initial_passwords: bool = False,
    next_n: int | None = None,
    include_ambiguous: bool = True,
    ambiguous_choice: bool = False,
    settings: Any = None,
    until: UntilRequest | None = None,
) -> PushReport:
    """Send the flagged items of ``project_id`` (highest confidence first, up to ``budget``) to the experts.

    ``ledger`` is an :class:`backend.ledger.Ledger` (``flagged``, ``latest_version``, ``project``).
    ``review_client`` is the review side: one instance, or :class:`ReviewClients` (each expert's own
    instance; default: ``client`` itself, the documented leak). Isolation is checked by the command
    before (:func:`backend.labelstudio.expert_instances.check_isolation`).
    ``initial_passwords`` signs new experts up with a random password each (in ``report.passwords``).
    ``order="shuffled"`` shuffles each expert's tasks (seeded by ``seed`` and the expert), as in the
    paper; the default keeps confidence order so a partial review covers the strongest suspects first.
    ``sample`` adds a random control sample (:mod:`backend.review.sample_push`); once a project has
    one, every expert's tasks follow a keyed-hash order that cannot reveal suspect from control.
    ``next_n`` (active review) sends the next N suspects by calibrated probability that the label is wrong,
    learnt from the settled control sample (:mod:`backend.review.active`); ValueError while it is too small.
    Suspects the triage calls ambiguous or a guideline gap are held back for the lead (``report.triage``)
    unless ``include_ambiguous`` (:func:`backend.review.triage_route.route_suspects`).
    ``ambiguous_choice`` offers "More than one answer may be right" on every item of every expert's project
    (:mod:`backend.review.ambiguous`); ValueError, before anything is stored or sent, for a task that cannot
    offer it or a review whose projects were made without it. A review made with it keeps offering it.
    ``until`` (``--until-width W``) grows a control sample drawn where the judges are least sure until the
    judge-assisted interval is within ±W (:mod:`backend.review.until_width_push`; one step per push, in
    ``report.until_width``); it replaces ``sample``.
    """
    experts = check_push_options(experts, order=order, budget=budget)
    if until is not None and sample is not None:
        raise ValueError("--until-width draws its own control sample: leave --sample out")
    source = load_audited_source(client, ledger, project_id, label_field=label_field,
                                 spec_options=settings.spec_options() if settings is not None else None)
    report = PushReport(source_project=project_id)
    report.ambiguous_choice = _ambiguous_choice(store, source, asked=ambiguous_choice)

    version = ledger.latest_version(source.key)
    if version is None:
        raise ValueError(f"project {project_id} has no scores yet: run `label-audit audit --project {project_id}` first")
    existing = store.items(source.key)
    chosen, inputs = _choose_new_items(client, store, ledger, source, report, existing=existing, threshold=threshold,
                                       budget=budget, next_n=next_n, sample=sample,
                                       include_ambiguous=include_ambiguous, until=until)
    new_items = [
        ReviewItem(str(r.id), len(existing) + k, r.original, r.prediction, r.confidence, version)
        for k, r in enumerate(chosen)
    ]
    store.add_items(source.key, new_items)
    items = existing + new_items
    report.items, report.added = len(items), len(new_items)
    if not items:
        return report  # nothing flagged: no empty review projects

    missing_inputs = [i.task_id for i in items if i.task_id not in inputs]
    if missing_inputs:
        got, bad = fetch_inputs(client, source, missing_inputs)
        inputs.update(got)
        report.errors.update(bad)
    review = as_review_clients(review_client if review_client is not None else client)
    if review.shared is not client or review.experts:
        report.warnings.extend(source_accounts(client, experts))
    guidelines = check_guidelines(source.guidelines, items=inputs)
    if guidelines.refused:
        report.warnings.append(f"guidelines not shown to the experts: {guidelines.refused}")
    report.guidelines_shown = bool(guidelines.html)
    if initial_passwords:
        _sign_up_new_experts(review, report, experts)
    images = ReviewImages.for_source(client, source.spec, settings=settings)  # image inputs: a neutral copy on each review instance
    _fill_expert_projects(review, store, source, report, experts=experts, items=items, inputs=inputs,
                          guidelines=guidelines, order=order, seed=seed, images=images)
    return report


def _ambiguous_choice(store: ReviewStore, source: SourceProject, *, asked: bool) -> bool:
    """Whether this push's projects offer the ambiguous choice: asked for, or the review already offers it.

    Every expert of one review must see the same choices, so a review made without it is refused the flag.
    """
    stored = store.ambiguous_choice(source.key)
    if asked and stored is False:
        raise ValueError(f"project {source.project_id}'s review projects were made without --ambiguous-choice; "
                         "every expert of a review sees the same choices, so it cannot be added now")
    offered = asked or bool(stored)
    if offered:
        source.check_ambiguous_choice()
    return offered


def _choose_new_items(client: LabelStudio, store: ReviewStore, ledger: Any, source: SourceProject,
                      report: PushReport, *, existing: Sequence[ReviewItem], threshold: float | None, budget: int | None,
                      next_n: int | None, sample: SampleRequest | None,
                      include_ambiguous: bool = True,
                      until: UntilRequest | None = None) -> tuple[list[ItemResult], dict[str, Any]]:
    """The flagged items not in review yet (up to the budget, or the next N by calibration), plus the
    control sample's draw, with their inputs; tasks that cannot be read go to ``report.errors``."""
    have = {i.task_id for i in existing}
    candidates = [r for r in ledger.flagged(source.key, threshold=threshold) if str(r.id) not in have]
    candidates = [r for r in candidates if r.prediction is not None]
    crowd = crowd_by_item(lab for labs in ledger.crowd_labels(source.key).values() for lab in labs)
    candidates, report.triage = route_suspects(ledger.results(source.key), candidates, spec=source.spec,
                                               outcomes=store.gold_labels(source.key), crowd=crowd,
                                               include_ambiguous=include_ambiguous)
    room = None if budget is None else max(budget - len(existing), 0)
    if next_n is not None:
        candidates, room = _next_by_calibration(store, ledger, source.key, candidates, have,
                                                is_error=_error_rule(source.spec)), next_n
    chosen, inputs, report.errors = _pick_items(client, source, candidates, room)
    if sample is not None:
        in_review = have | {str(r.id) for r in chosen}
        _draw, report.sample_drawn, extra = draw_for_push(store.db_engine, ledger, source.key, sample,
                                                          in_review=in_review, threshold=threshold)
        picked, extra_inputs, extra_errors = _pick_items(client, source, extra, None)
        chosen, report.sampled = chosen + picked, len(picked)
        inputs.update(extra_inputs)
        report.errors.update(extra_errors)
    if until is not None:
        report.until_width, extra, added = until_width_extra(store, ledger, source.key, until,
                                                             in_review=have | {str(r.id) for r in chosen},
                                                             is_error=_error_rule(source.spec))
        picked, extra_inputs, extra_errors = _pick_items(client, source, extra, None)
        chosen, report.sampled, report.sample_drawn = chosen + picked, len(picked), added
        inputs.update(extra_inputs)
        report.errors.update(extra_errors)
    return chosen, inputs


def _error_rule(spec: Any) -> Any:
    """``(gold, original) -> bool``: an error is what the task's family calls a disagreement."""
    return lambda gold, original: label_error(gold, original, spec)


def _next_by_calibration(store: ReviewStore, ledger: Any, key: str, candidates: Sequence[ItemResult],
                         have: set[str], *, is_error: Any = None) -> list[ItemResult]:
    """``candidates`` ordered by calibrated probability of a wrong label (the control sample's fit)."""
    results = ledger.results(key)
    outcomes = {o.task_id: o for o in store.gold_labels(key)}
    ranking = rank_suspects(results, control_sample(results, SampleStore(store.db_engine).draw(key), outcomes,
                                                    is_error=is_error), reviewed=have, is_error=is_error)
    if ranking.calibration is None:
        raise ValueError(f"--next needs a calibration: {ranking.reason} (review push --sample N, then review status)")
    by_id = {str(r.id): r for r in candidates}
    return [by_id[i] for i, _ in ranking.ranked if i in by_id]


def _sign_up_new_experts(review: ReviewClients, report: PushReport, experts: Sequence[str]) -> None:
    """Give each expert who has no account yet (on their instance) one with a random password (a refusal is a warning)."""
    for email in experts:
        sign_up_expert(review.for_expert(email)[1], email, passwords=report.passwords, warnings=report.warnings)


def _fill_expert_projects(
    review: ReviewClients, store: ReviewStore, source: SourceProject, report: PushReport, *,
    experts: Sequence[str], items: Sequence[ReviewItem], inputs: dict[str, dict[str, Any]],
    guidelines: Guidelines, order: str, seed: int, images: ReviewImages | None = None,
) -> None:
    """Create each missing expert project on the review instance and import what it lacks.

    With ``images``, each task's image fields point at the copy uploaded to that expert's instance; an item
    whose copy fails is that item's error and stays unimported (the next push retries it).
    Each task holds its family's blind copy of the inputs (:func:`blind_inputs`: a ranking's list shuffled per task).
    """
    projects = {p.expert: p for p in store.projects(source.key, round=ROUND_REVIEW)}
    shown = blind_inputs(source.spec, inputs, seed=seed, originals={i.task_id: i.original for i in items})
    for email in experts:
        if email not in projects:
            instance, client = review.for_expert(email)
            projects[email] = _expert_project(client, store, source, email, len(projects), guidelines, instance,
                                              report.ambiguous_choice)
    for email in experts:
        project = projects[email]
        client = review.for_instance(project.instance)
        assigned = store.assignments(source.key, round=ROUND_REVIEW, expert=email)
        recover_task_ids(client, store, project.ls_project_id, [a for a in assigned if a.ls_task_id is None])
        assigned = store.assignments(source.key, round=ROUND_REVIEW, expert=email)
        unconfirmed = [a for a in assigned if a.ls_task_id is None]
        todo = [i.task_id for i in items if i.task_id in inputs]
        if order == "shuffled":
            random.Random(f"{seed}:{email}").shuffle(todo)
        todo = review_order(todo, engine=store.db_engine, source_key=source.key, expert=email) or todo
        fresh = store.assign(source.key, todo, round=ROUND_REVIEW, expert=email, ls_project_id=project.ls_project_id)
        pending = unconfirmed + fresh
        data_of, bad = prepare_or_pass(images, {a.task_id: shown[a.task_id] for a in pending if a.task_id in shown},
                                       client=client, project_id=project.ls_project_id)
        report.errors.update({t: f"{why} (review project of {email})" for t, why in bad.items()})
        report.new_tasks[email] = import_assignments(client, store, project.ls_project_id, pending, data_of)
        report.projects[email] = project.ls_project_id
        url = review.project_url(project.instance, project.ls_project_id)
        if url:
            report.urls[email] = url
