"""Label Studio task -> :class:`backend.dataset.Item`, with the crowd's labels kept aside.

The original label of a task is what its annotators chose in the project's ``<Choices>`` control: the
majority of its (non-cancelled) annotations — the median for an ordinal task (Nahum's SummEval) — with the
one tie rule of :mod:`backend.labels`, so a task annotated
by three crowd workers is judged against their majority while every individual answer is kept for the
crowd statistics (p_d, agreement). Projects imported with the label as a data field name that field
(``label_field``) instead. A malformed task never raises out of :func:`tasks_to_items`: it becomes an
error :class:`ItemResult` that the worker records and counts like any other verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from backend.dataset import Item, RecordError, item_from_record
from backend.labels import original_label
from backend.labelstudio.gold import is_gold_annotation
from backend.labelstudio.labelconfig import choice_from_result
from backend.ledger.store import CrowdLabel
from backend.results import ErrorInfo, ItemResult
from backend.taskspec import TaskSpec

MALFORMED = "malformed_task"


@dataclass(frozen=True)
class ConvertedTasks:
    """Items to score, per-task errors (already results), and every annotator label seen."""

    items: list[Item] = field(default_factory=list)
    errors: list[ItemResult] = field(default_factory=list)
    crowd: list[CrowdLabel] = field(default_factory=list)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """Read a key from a dict or an attribute from an SDK (pydantic) object."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def crowd_labels(task: Mapping[str, Any], spec: TaskSpec) -> list[CrowdLabel]:
    """Every non-cancelled annotation's label for the spec's control (unparseable ones keep None).

    Gold annotations written back by `sync-gold` are not original labels and are left out.
    """
    control = str(spec.extra.get("from_name", ""))
    out = []
    for ann in _get(task, "annotations") or ():
        if _get(ann, "was_cancelled", False) or is_gold_annotation(ann):
            continue
        result = [r if isinstance(r, Mapping) else dict(r) for r in (_get(ann, "result") or ())]
        raw = choice_from_result(result, control=control) if control else None
        annotator = _get(ann, "completed_by")
        if isinstance(annotator, Mapping):
            annotator = annotator.get("id")
        out.append(
            CrowdLabel(
                task_id=str(_get(task, "id")),
                annotation_id=str(_get(ann, "id", len(out))),
                label=spec.normalize_label(raw) if raw is not None else None,
                annotator=None if annotator is None else str(annotator),
            )
        )
    return out


def task_to_item(task: Mapping[str, Any], spec: TaskSpec, *, label_field: str | None = None) -> tuple[Item, list[CrowdLabel]]:
    """Convert one LS task; raise ValueError (a ``RecordError``) saying what is wrong with it.

    Parameters
    ----------
    task : mapping
        A task as LS sends it to ``/predict`` or lists it (``id``, ``data``, ``annotations``).
    spec : TaskSpec
        Derived from the project's label config.
    label_field : str, optional
        Read the original label from this data field instead of the annotations.
    """
    task_id = _get(task, "id")
    if task_id is None or isinstance(task_id, bool):
        raise RecordError("missing_id", "the task has no id")
    data = _get(task, "data")
    if not isinstance(data, Mapping):
        raise RecordError("bad_value", "the task's data is not an object", item_id=str(task_id))
    crowd = crowd_labels(task, spec)
    record = dict(data)
    record[spec.id_field] = str(task_id)
    if label_field is None:
        record[spec.label_field] = original_label([c.label for c in crowd], family=spec.family, order=spec.labels,
                                                  negative=spec.negative_label or None)
    elif label_field != spec.label_field:
        record[spec.label_field] = data.get(label_field)
    return item_from_record(record, spec), crowd


def tasks_to_items(tasks: Iterable[Any], spec: TaskSpec, *, label_field: str | None = None) -> ConvertedTasks:
    """Convert many tasks; each bad one becomes an error result (``malformed_task: <reason>: <detail>``)."""
    out = ConvertedTasks()
    for index, task in enumerate(tasks):
        raw_id = _get(task, "id") if isinstance(task, Mapping) or hasattr(task, "id") else None
        try:
            item, crowd = task_to_item(task if isinstance(task, Mapping) else _as_mapping(task), spec,
                                       label_field=label_field)
        except (ValueError, TypeError) as exc:
            reason = f"{exc.reason}: {exc.detail}" if isinstance(exc, RecordError) else str(exc)
            out.errors.append(error_result(str(raw_id) if raw_id is not None else f"task#{index}", reason))
            continue
        out.items.append(item)
        out.crowd.extend(crowd)
    return out


def error_result(task_id: str, reason: str) -> ItemResult:
    """The ledger's record of a task that could not be judged."""
    return ItemResult(
        id=task_id, original=None, prediction=None, confidence=None, probs=None, flagged=False,
        error=ErrorInfo(MALFORMED, False, reason),
    )


def _as_mapping(task: Any) -> Mapping[str, Any]:
    """SDK task objects (pydantic) -> dict; anything else is malformed."""
    dump = getattr(task, "model_dump", None)
    if dump is None:
        raise TypeError(f"a task is an object with id and data, got {type(task).__name__}")
    return dump()
