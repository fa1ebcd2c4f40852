"""Label Studio task -> :class:`backend.task.dataset.Item`, with the crowd's labels kept aside.

The original label of a task is what its annotators chose in the project's ``<Choices>`` control: the
majority of its (non-cancelled) annotations — the median for an ordinal task (Nahum's SummEval) — with the
one tie rule of :mod:`backend.common.labels`, so a task annotated
by three crowd workers is judged against their majority while every individual answer is kept for the
crowd statistics (p_d, agreement). Projects imported with the label as a data field name that field
(``label_field``) instead. A malformed task never raises out of :func:`tasks_to_items`: it becomes an
error :class:`ItemResult` that the worker records and counts like any other verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Iterable, Iterator, Mapping

from backend.common import defaults
from backend.task.dataset import Item, RecordError, item_from_record, short_id
from backend.images.fetch import ImageFetcher, ImageRefused
from backend.images.items import attach_images
from backend.common.labels import original_label
from backend.labelstudio.gold_marks import is_gold_annotation
from backend.labelstudio.taskshape import as_dict, field, live_annotations, user_id_of
from backend.ledger.store import CrowdLabel
from backend.scoring.results import ErrorInfo, ItemResult, input_hash
from backend.task.spec import TaskSpec

MALFORMED = "malformed_task"


@dataclass(frozen=True)
class ConvertedTasks:
    """Items to score, per-task errors (already results), and every annotator label seen."""

    items: list[Item] = dataclass_field(default_factory=list)
    errors: list[ItemResult] = dataclass_field(default_factory=list)
    crowd: list[CrowdLabel] = dataclass_field(default_factory=list)


def annotation_results(task: Any) -> Iterator[tuple[Any, int | None, list]]:
    """(annotation id, annotator id, result) of each annotation that is an answer.

    Cancelled annotations and the gold annotations `sync-gold` wrote
    (:func:`backend.labelstudio.gold_marks.is_gold_annotation`) are no answers: neither counts as a label.
    """
    for ann in live_annotations(task):
        if not is_gold_annotation(ann):
            yield field(ann, "id"), user_id_of(field(ann, "completed_by")), list(field(ann, "result") or ())


def crowd_labels(task: Mapping[str, Any], spec: TaskSpec) -> list[CrowdLabel]:
    """Every non-cancelled annotation's label for the spec's control (invalid ones keep None: the worker makes
    such a task its ``bad_label`` error, :func:`task_to_item`; the report's crowd figures leave them out).

    Gold annotations written back by `sync-gold` are not original labels and are left out.
    """
    return _read_crowd(task, spec)[0]


def _read_crowd(task: Mapping[str, Any], spec: TaskSpec) -> tuple[list[CrowdLabel], list[str]]:
    """The crowd labels, and why each invalid answer is none (``annotation <id>: <reason>``)."""
    out: list[CrowdLabel] = []
    problems: list[str] = []
    for ann_id, annotator, result in annotation_results(task):
        if len(str(ann_id)) > defaults.MAX_ID_CHARS or len(str(annotator)) > defaults.MAX_ID_CHARS:
            continue  # not storable as a key; the task is still judged on its other answers
        try:
            label = spec.task_family.read_result(spec, result)
        except ValueError as exc:  # an answer that is no label of the control (a rating of 6 on five stars)
            label = None
            problems.append(f"annotation {str(ann_id)[:40]}: {exc}")
        out.append(
            CrowdLabel(
                task_id=str(field(task, "id")),
                annotation_id=str(len(out) if ann_id is None else ann_id),
                label=label,
                annotator=None if annotator is None else str(annotator),
            )
        )
    return out, problems


def crowd_by_item(labels: Iterable[CrowdLabel]) -> dict[str, dict[str, str]]:
    """Item id -> annotator -> label: the shape the truth model reads (unparsed labels left out).

    An annotation with no annotator keeps its own key (``annotation <id>``) so two anonymous answers stay
    two labels. The report (from Label Studio) and ``review push`` (from the ledger) both go through here,
    so one item gets one triage whichever command shows it.
    """
    out: dict[str, dict[str, str]] = {}
    for lab in labels:
        if lab.label is not None:
            out.setdefault(str(lab.task_id), {})[lab.annotator or f"annotation {lab.annotation_id}"] = lab.label
    return out


def task_to_item(task: Mapping[str, Any], spec: TaskSpec, *, label_field: str | None = None,
                 max_chars: int = defaults.MAX_ITEM_CHARS) -> tuple[Item, list[CrowdLabel]]:
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
    task_id = field(task, "id")
    if task_id is None or isinstance(task_id, bool):
        raise RecordError("missing_id", "the task has no id")
    data = field(task, "data")
    if not isinstance(data, Mapping):
        raise RecordError("bad_value", "the task's data is not an object", item_id=str(task_id))
    crowd, problems = _read_crowd(task, spec)
    if problems:  # as a file's label that is none of the spec's: that item's error, never a silent no-answer
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise RecordError("bad_label", problems[0] + more, item_id=str(task_id))
    record = dict(data)
    record[spec.id_field] = str(task_id)
    if label_field is None:
        record[spec.label_field] = original_label([c.label for c in crowd], spec=spec)
    elif label_field != spec.label_field:
        record[spec.label_field] = data.get(label_field)
    return item_from_record(record, spec, max_chars=max_chars), crowd


def tasks_to_items(tasks: Iterable[Any], spec: TaskSpec, *, label_field: str | None = None,
                   max_chars: int = defaults.MAX_ITEM_CHARS, fetcher: ImageFetcher | None = None) -> ConvertedTasks:
    """Convert many tasks; each bad one becomes an error result (``malformed_task: <reason>: <detail>``; an
    answer that is none of the control's labels: ``bad_label: <detail>``, the code a file's bad label has).

    An error's id is storable (:func:`backend.task.dataset.short_id`): a 300-character task id overflowed
    the ledger's key column on PostgreSQL and failed the whole batch. A spec with image fields has each
    task's images fetched by ``fetcher`` (:func:`backend.images.items.attach_images`); a refused image is
    that task's error under the refusal's own reason (``image_host``, ``image_too_large``...), its input
    hash that of the references, and its annotators' labels are kept.
    """
    out = ConvertedTasks()
    for index, task in enumerate(tasks):
        raw_id = field(task, "id") if isinstance(task, Mapping) or hasattr(task, "id") else None
        try:
            item, crowd = task_to_item(as_dict(task), spec, label_field=label_field, max_chars=max_chars)
        except (ValueError, TypeError) as exc:
            task_key = short_id(str(raw_id)) if raw_id is not None else f"task#{index}"
            if isinstance(exc, RecordError) and exc.reason == "bad_label":  # counted as a file's bad label is
                out.errors.append(error_result(task_key, exc.detail, code=exc.reason))
                continue
            reason = f"{exc.reason}: {exc.detail}" if isinstance(exc, RecordError) else str(exc)
            out.errors.append(error_result(task_key, reason))
            continue
        out.crowd.extend(crowd)
        try:
            item = attach_images(item, spec, fetcher, task_id=_task_number(raw_id))
        except ImageRefused as exc:
            out.errors.append(error_result(item.id, exc.detail, code=exc.reason, input_hash=input_hash(item.fields)))
            continue
        out.items.append(item)
    return out


def _task_number(raw_id: Any) -> int | None:
    try:
        return int(raw_id)
    except (TypeError, ValueError):
        return None


def error_result(task_id: str, reason: str, *, code: str = MALFORMED, input_hash: str | None = None) -> ItemResult:
    """The ledger's record of a task that could not be judged (``code``: the counted reason)."""
    return ItemResult(
        id=task_id, original=None, prediction=None, confidence=None, probs=None, flagged=False,
        error=ErrorInfo(code, False, reason), input_hash=input_hash,
    )

