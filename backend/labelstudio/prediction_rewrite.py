"""Rewrite predictions already in Label Studio: the audit's health gate re-reads verdicts after their import.

The workers import each task's prediction as its batch is scored (the outbox, :mod:`backend.worker.importer`);
the health gate is decided later, once, over the whole project (:mod:`backend.worker.gate_writeback`). A task
whose gated prediction differs from the one Label Studio holds gets that prediction updated in place
(``PATCH /api/predictions/{id}``: ``result`` and ``score``): its id, its readable ``model_version`` name and every
other version's predictions stay as they are. One call per changed task (measured ≈ 0.35 s on SQLite at load
average 6: docs/judges.md): Label Studio 1.23.2's bulk import only adds predictions, and its bulk delete (the Data
Manager's ``delete_tasks_predictions``) takes every version's predictions of a task, not one version's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.modelname import same_version
from backend.labelstudio.taskshape import field

__all__ = ["StoredPrediction", "same_prediction", "stored_predictions", "stored_score", "update_prediction"]

SCORE_TOLERANCE = 1e-9  # Label Studio stores the score as a double: a round trip is exact, not a rounding


@dataclass(frozen=True)
class StoredPrediction:
    """One task's prediction of a model version as Label Studio holds it."""

    id: int
    task: str
    result: list[Any]
    score: float | None


def _plain(value: Any) -> Any:
    """Listed predictions are pydantic objects or dicts: the JSON value either way, for comparison."""
    if hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def stored_predictions(client: Any, project: str, task_ids: Iterable[str],
                       model_version: str) -> dict[str, StoredPrediction]:
    """Each listed task's prediction of ``model_version`` (under its readable name or the bare key), by task id.

    When a task holds several (a re-scored task), the newest (highest id) is the one the lead sees first.
    """
    numeric = [int(t) for t in task_ids if str(t).isdigit()]
    found: dict[str, StoredPrediction] = {}
    if not numeric:
        return found
    for task in iter_tasks(client, int(project), with_annotations=True, task_ids=numeric):
        tid = str(field(task, "id"))
        for pred in field(task, "predictions", None) or []:
            pid = field(pred, "id", None)
            if pid is None or not same_version(field(pred, "model_version", None), model_version):
                continue
            if tid in found and found[tid].id > int(pid):
                continue
            found[tid] = StoredPrediction(id=int(pid), task=tid, result=_plain(field(pred, "result", None) or []),
                                          score=stored_score(field(pred, "score", None)))
    return found


def stored_score(value: Any) -> float | None:
    """A listed prediction's score as a number; None for a score edited into something else (not a number, NaN),
    so that prediction is rewritten rather than the audit's last leg stopping on it."""
    try:
        score = float(value)
    except (TypeError, ValueError):
        return None
    return None if score != score else score


def same_prediction(stored: StoredPrediction, wanted: Mapping[str, Any]) -> bool:
    """True when Label Studio already holds ``wanted`` (its label, flag marker and score): nothing to rewrite."""
    if stored.score is None or abs(stored.score - float(wanted["score"])) > SCORE_TOLERANCE:
        return False
    return json.dumps(stored.result, sort_keys=True) == json.dumps(_plain(wanted["result"]), sort_keys=True)


def update_prediction(client: Any, prediction_id: int, wanted: Mapping[str, Any]) -> None:
    """Replace one stored prediction's ``result`` and ``score`` by ``wanted``'s (a ``/predict`` answer)."""
    client.predictions.update(id=int(prediction_id), result=list(wanted["result"]), score=float(wanted["score"]))
