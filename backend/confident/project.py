"""A worker's confident-learning members: fitted on the whole project, once per project version.

A job holds one batch of tasks, but the member must learn from every labelled task of the project. So
the job reads the project's tasks (paged, through the SDK) and trains the member on them
(:func:`backend.confident.fitting.prepare_members`). The training set's fingerprint (every item's
inputs and label) is part of the member's cache parameters, so:

- the first job of a project version that misses the call cache fits once and stores the answer of
  every task of the project in the call cache (:func:`backend.confident.fitting.cache_priming_hook`);
- every later job of that version finds its answers there and fits nothing;
- any change of the project's labelled items (a task added or removed, a text or a label edited) changes
  the fingerprint: the next job refits, and the old answers are simply never asked for again.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

from backend.scoring.cache import CallCache
from backend.confident.fitting import Prepared, cache_priming_hook, is_confident, prepare_members
from backend.task.dataset import Item
from backend.scoring.members import Member
from backend.task.spec import TaskSpec
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.tasks import tasks_to_items

log = logging.getLogger(__name__)


def project_items(client: Any, project: str, spec: TaskSpec, *, label_field: str | None) -> list[Item]:
    """Every task of ``project`` that reads as an item (bad tasks are the jobs' own errors to record)."""
    return tasks_to_items(iter_tasks(client, int(project), with_annotations=True), spec, label_field=label_field).items


def prepare_for_project(members: Sequence[Member], *, connect: Callable[[], Any], project: str, spec: TaskSpec,
                        label_field: str | None, delimit: bool) -> tuple[Prepared, list[Item]]:
    """Train the confident-learning members on the project (or leave them out with the reason).

    ``connect()`` returns a Label Studio client (None without credentials); called only when a member needs it.
    """
    if not any(is_confident(m) for m in members):
        return Prepared(members=list(members)), []
    client = connect()
    if client is None:
        kept = [m for m in members if not is_confident(m)]
        reason = "needs LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY to read the project's labelled tasks"
        left = {m.id: reason for m in members if is_confident(m)}
        if not kept:
            raise ValueError("the ensemble has no member left: " + reason)
        return Prepared(members=kept, left_out=left), []
    items = project_items(client, project, spec, label_field=label_field)
    prepared = prepare_members(members, items, spec, delimit=delimit)
    for note in prepared.notes():
        log.warning("project %s: %s", project, note)
    return prepared, items


def share_fits(engine: Any, items: Sequence[Item], cache: CallCache) -> None:
    """Let the first fit of this project version serve every other job (through the call cache).

    A question asked in several option orders has one engine per order; the confident-learning member
    answers the first (``Question.reorders``), so its answers are stored under that engine's keys.
    """
    asked = engine.engines[0] if hasattr(engine, "engines") else engine
    for member in engine.members:
        if is_confident(member):
            member.provider.on_fit = cache_priming_hook(asked, member, items, cache)
