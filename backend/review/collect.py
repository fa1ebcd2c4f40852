"""Read the experts' answers back from the review projects (one paged listing per project).

Attribution is strict, because Nahum's experts label independently and an answer typed by someone else
is not that expert's judgement: in round 1 only annotations completed by the project's own expert
count (their latest one); in round 2 only annotations by one of the review's experts. Anything else —
the lead trying the form, a colleague the expert invited, an account made on the instance — is not
counted and is recorded as an :class:`~backend.review.review_store.IgnoredAnswer` (who, which item, which
project) for ``review status`` and the report. Each project is read on its own instance
(:class:`~backend.labelstudio.expert_instances.ReviewClients`).
"""

from __future__ import annotations

from typing import Any

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.expert_instances import ReviewClients, as_review_clients
from backend.labelstudio.tasks import annotation_results
from backend.labelstudio.taskshape import field
from backend.review.ambiguous import read_answer
from backend.review.source import REF_FIELD, SourceProject
from backend.review.review_store import ROUND_REVIEW, Answer, IgnoredAnswer, ReviewProject, ReviewStore


def _emails_by_id(client: Any) -> dict[int, str]:
    return {int(u.id): (u.email or "").lower() for u in client.users.list()}


def _counts(project: ReviewProject, user_id: int | None, emails: dict[int, str], experts: set[str]) -> bool:
    """Whether an annotation by ``user_id`` is an answer of this project's expert(s)."""
    if project.round == ROUND_REVIEW:
        return user_id is not None and user_id == project.expert_user_id
    return emails.get(user_id if user_id is not None else -1, "") in experts


def _project_answers(
    client: Any, source: SourceProject, project: ReviewProject, refs: dict[str, Any], experts: set[str],
) -> tuple[list[Answer], list[IgnoredAnswer]]:
    emails = _emails_by_id(client)
    out: list[Answer] = []
    ignored: list[IgnoredAnswer] = []
    for task in iter_tasks(client, project.ls_project_id, with_annotations=True):
        assignment = refs.get((field(task, "data", None) or {}).get(REF_FIELD))
        if assignment is None or (assignment.round, assignment.expert) != (project.round, project.expert):
            continue  # a task this tool did not create for this project: ignore it
        annotations = sorted(annotation_results(task), key=lambda a: a[0] or 0)
        counted = []
        for ann_id, user_id, result in annotations:
            if _counts(project, user_id, emails, experts):
                counted.append((ann_id, user_id, result))
                continue
            who = emails.get(user_id if user_id is not None else -1) or f"user:{user_id}"
            ignored.append(IgnoredAnswer(project.round, project.expert, assignment.task_id, who, int(ann_id or 0),
                                         project.ls_project_id, project.instance))
        if project.round == ROUND_REVIEW:
            counted = counted[-1:]  # the expert's latest answer
        for ann_id, user_id, result in counted:
            expert = project.expert if project.round == ROUND_REVIEW else emails[int(user_id)]
            out.append(Answer(assignment.ref, assignment.task_id, project.round, expert, int(ann_id or 0),
                              read_answer(source.spec, result)))
    return out, ignored


def collect_answers(clients: ReviewClients | Any, store: ReviewStore, source: SourceProject) -> dict[str, int]:
    """Refresh every stored answer of the source project's review projects; returns answers per project.

    ``clients`` is a :class:`ReviewClients` (each project read on its own instance) or one SDK client
    holding every review project.
    """
    clients = as_review_clients(clients)
    projects = store.projects(source.key)
    if not projects:
        return {}
    refs = {a.ref: a for a in store.assignments(source.key)}
    experts = set(store.experts(source.key))
    counts: dict[str, int] = {}
    for project in projects:
        client = clients.for_instance(project.instance)
        answers, ignored = _project_answers(client, source, project, refs, experts)
        counts[project.display_name] = store.replace_answers(project, answers, ignored=ignored)
    return counts
