"""Read the experts' answers back from the review projects (one paged listing per project).

Round 1: each project belongs to one expert, so its answer is that expert's annotation (if someone
else — say the lead typing in a paper form — annotated instead, the latest annotation counts for
the project's expert). Round 2: every annotation counts, attributed to its annotator.
"""

from __future__ import annotations

from typing import Any

from label_studio_sdk import LabelStudio

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.tasks import annotation_results
from backend.labelstudio.taskshape import field
from backend.review.source import REF_FIELD, SourceProject
from backend.review.store import ROUND_REVIEW, Answer, ReviewProject, ReviewStore


def _emails_by_id(client: LabelStudio) -> dict[int, str]:
    return {int(u.id): (u.email or "").lower() for u in client.users.list()}


def _project_answers(
    client: LabelStudio,
    source: SourceProject,
    project: ReviewProject,
    refs: dict[str, Any],
    emails: dict[int, str],
) -> list[Answer]:
    out: list[Answer] = []
    for task in iter_tasks(client, project.ls_project_id, with_annotations=True):
        ref = (field(task, "data", None) or {}).get(REF_FIELD)
        assignment = refs.get(ref)
        if assignment is None:
            continue  # a task this tool did not create: ignore it
        annotations = sorted(annotation_results(task), key=lambda a: a[0] or 0)
        if project.round == ROUND_REVIEW and annotations:
            own = [a for a in annotations if a[1] == project.expert_user_id]
            annotations = [(own or annotations)[-1]]
        for ann_id, user_id, result in annotations:
            if project.round == ROUND_REVIEW:
                expert = project.expert
            else:
                expert = emails.get(user_id or -1, f"user:{user_id}")
            out.append(
                Answer(assignment.ref, assignment.task_id, project.round, expert, int(ann_id or 0),
                       source.spec.task_family.read_result(source.spec, result))
            )
    return out


def collect_answers(client: LabelStudio, store: ReviewStore, source: SourceProject) -> dict[str, int]:
    """Refresh every stored answer of the source project's review projects; returns answers per project."""
    projects = store.projects(source.key)
    if not projects:
        return {}
    refs = {a.ref: a for a in store.assignments(source.key)}
    emails = _emails_by_id(client)
    counts: dict[str, int] = {}
    for project in projects:
        answers = _project_answers(client, source, project, refs, emails)
        counts[project.display_name] = store.replace_answers(
            project.ls_project_id, answers, source_project=source.key
        )
    return counts
