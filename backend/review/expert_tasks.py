"""What the review writes into an expert's instance, safe to repeat: accounts and one task per assignment.

Round 1 (:mod:`backend.review.push`) and round 2 (:mod:`backend.review.reconcile`) both import tasks that an
earlier run may have created before it died (matched back by their ref) and sign experts up once. What a task
holds is the family's blind copy of its inputs (:func:`blind_inputs`), the same on every push.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from label_studio_sdk import LabelStudio

from backend.labelstudio.client import import_tasks, iter_tasks, organization_id, sign_up_user
from backend.review.review_store import Assignment, ReviewStore
from backend.review.source import REF_FIELD

if TYPE_CHECKING:
    from backend.task.spec import TaskSpec

__all__ = ["blind_inputs", "import_assignments", "recover_task_ids", "sign_up_expert"]


def recover_task_ids(client: LabelStudio, store: ReviewStore, ls_project_id: int, pending: Sequence[Assignment]) -> None:
    """Match assignments whose import was not confirmed to tasks already in Label Studio, by ref."""
    if not pending:
        return
    wanted = {a.ref for a in pending}
    found = {}
    for task in iter_tasks(client, ls_project_id):
        ref = (task.data or {}).get(REF_FIELD)
        if ref in wanted:
            found[ref] = int(task.id)
    store.set_task_ids(found)


def import_assignments(
    client: LabelStudio,
    store: ReviewStore,
    ls_project_id: int,
    assignments: Sequence[Assignment],
    data_of: dict[str, dict[str, Any]],
) -> int:
    """Bulk-import one task per assignment (inputs + ref) and record the created task ids."""
    ready = [a for a in assignments if a.task_id in data_of]
    if not ready:
        return 0
    tasks = [{"data": {**data_of[a.task_id], REF_FIELD: a.ref}} for a in ready]
    ids = import_tasks(client, ls_project_id, tasks)
    store.set_task_ids({a.ref: t for a, t in zip(ready, ids)})
    return len(ready)


def sign_up_expert(client: LabelStudio, email: str, *, passwords: dict[str, str], warnings: list[str]) -> None:
    """Sign ``email`` up on ``client``'s instance with a random password, put in ``passwords``; nothing for an
    existing account (its password is its owner's); a refusal goes to ``warnings``."""
    try:
        password = sign_up_user(client, email, org_id=organization_id(client))
    except ValueError as exc:
        warnings.append(f"{exc}: set a password with `label-studio reset_password`")
        return
    if password is not None:
        passwords[email] = password


def blind_inputs(spec: "TaskSpec", inputs: Mapping[str, Mapping[str, Any]], *, seed: int,
                 originals: Mapping[str, str | None]) -> dict[str, dict[str, Any]]:
    """Each task's inputs as its family lets an expert see them (:meth:`TaskFamily.blind_data`: a ranking's list
    shuffled), seeded by the review's ``seed`` and the task id: every expert and every re-push get the same copy.
    ``originals``: task id -> the answer under review, which the copy must not show."""
    family = spec.task_family
    return {task_id: family.blind_data(spec, data, seed=f"{seed}:{task_id}", original=originals.get(task_id))
            for task_id, data in inputs.items()}
