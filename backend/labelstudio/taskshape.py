"""The shape of a Label Studio task: read its fields, turn it into a plain dict, slim it for a job.

The SDK hands out tasks as pydantic models or as dicts depending on the call (a listing, a single
read, an export, the JSON body of ``/predict``), and their annotations' ``completed_by`` is an id in
listings and a user object in single-task reads. Every reader goes through these few functions instead
of guessing the type again. Walking a task's annotations lives in :mod:`backend.labelstudio.tasks`
(it skips our gold annotations, :mod:`backend.labelstudio.gold_marks`); this module imports nothing of ours,
so both can use it.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

#: What scoring reads from an annotation (a job carries only these; see :func:`job_task`).
ANNOTATION_KEYS = ("id", "result", "completed_by", "was_cancelled")


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read ``name`` from a dict or an SDK (pydantic) object: listed tasks mix both."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def user_id_of(value: Any) -> int | None:
    """A user id from ``completed_by``: an id, a digit string, or a user dict/object; None when unreadable.

    Unreadable (a flag, a name, a user without id) is None rather than an error: one odd annotation
    must not stop the batch it came in.
    """
    if value is not None and not isinstance(value, (int, str)):
        value = field(value, "id")
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def as_dict(task: Any) -> dict[str, Any]:
    """A task (dict or SDK object) as a plain dict; raises TypeError for anything else."""
    if isinstance(task, Mapping):
        return dict(task)
    dump = getattr(task, "model_dump", None)
    if dump is None:
        raise TypeError(f"a task is an object with id and data, got {type(task).__name__}")
    return dump()


def live_annotations(task: Any) -> Iterator[Any]:
    """The task's annotations that were not cancelled, as they come (dicts or SDK objects)."""
    for ann in field(task, "annotations") or ():
        if not field(ann, "was_cancelled", False):
            yield ann


def job_task(task: Any) -> dict[str, Any]:
    """Only what scoring needs: id, data, annotations (keeps Redis small, drops LS bookkeeping).

    Malformed annotations are kept as they came (a non-list) or dropped (a non-object entry): the
    worker records a malformed task as an error, it never fails the job.
    """
    task = as_dict(task)
    raw = task.get("annotations") or ()
    if not isinstance(raw, (list, tuple)):
        return {"id": task.get("id"), "data": task.get("data"), "annotations": raw}
    anns = [{k: ann.get(k) for k in ANNOTATION_KEYS} for ann in raw if isinstance(ann, Mapping)]
    return {"id": task.get("id"), "data": task.get("data"), "annotations": anns}
