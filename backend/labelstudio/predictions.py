"""Ensemble results -> Label Studio predictions, imported in bulk (the server's and workers' LS calls).

One prediction per task, at the ensemble level: the Data Manager averages the scores of all
predictions carrying the connected backend's ``model_version``, so per-member predictions would
blur the confidence column. One ``import_predictions`` call per batch (≈60x faster than one
``predictions.create`` per task on LS 1.23.2, see
docs/architecture.md#bulk-calls-to-label-studio).

``model_version`` below is always the run's key (ledger, jobs, suspect marker); ``ls_version`` is the
readable name Label Studio stores and shows (:mod:`backend.labelstudio.modelname`), the key itself
when not given. What is read back from Label Studio is compared by key, so predictions stored under
the old bare key still count.
"""

from __future__ import annotations

import logging

from typing import Any, Iterable

from backend.labelstudio.scoreview import show_scores
from backend.scoring.results import ItemResult
from backend.config.settings import Settings
from backend.task.spec import TaskSpec
from backend.labelstudio.client import connect, iter_tasks
from backend.labelstudio.modelname import same_version
from backend.labelstudio.taskshape import field


log = logging.getLogger(__name__)


def prediction_result(label: str, spec: TaskSpec) -> list[dict[str, Any]]:
    """The ``result`` list selecting label value ``label`` in the project's control (the family writes it).

    ``value`` comes first: the suspects tab shows the result as text, cut after three lines.
    """
    return spec.task_family.write_result(spec, label)


def prediction_for(result: ItemResult, spec: TaskSpec, model_version: str, *,
                   ls_version: str | None = None) -> dict[str, Any] | None:
    """The ``/predict`` answer for one scored task, or None when the ensemble gave no prediction."""
    if result.prediction is None or result.confidence is None:
        return None
    return {
        "result": spec.task_family.marked_result(spec, result, model_version=model_version),
        "score": float(result.confidence),
        "model_version": ls_version or model_version,
    }


def prediction_requests(results: Iterable[ItemResult], spec: TaskSpec, model_version: str, *,
                        ls_version: str | None = None) -> list[dict[str, Any]]:
    """``import_predictions`` payload: one entry per task that got a prediction (errors are skipped)."""
    out = []
    for res in results:
        pred = prediction_for(res, spec, model_version, ls_version=ls_version)
        if pred is not None and str(res.id).isdigit():
            out.append({"task": int(res.id), **pred})
    return out


def ls_client(settings: Settings, *, timeout: float = 60):
    """A Label Studio SDK client from the settings' ``label_studio_url``/``label_studio_token``.

    Returns None when either is missing (results then stay in the ledger only, and a later
    ``label-audit audit`` run imports them).
    """
    if not settings.label_studio_url or not settings.label_studio_token:
        return None
    try:
        return connect(settings.label_studio_url, settings.label_studio_token, timeout=timeout)
    except ValueError:
        return None


def import_predictions(client: Any, project: str, requests: list[dict[str, Any]], *, chunk: int = 500) -> int:
    """Bulk-import prediction requests into a project; returns how many were sent.

    Then the project's score column and "Suspected label errors" tab follow this model version.
    """
    for start in range(0, len(requests), chunk):
        page = requests[start:start + chunk]
        answer = client.projects.import_predictions(id=int(project), request=page)
        created = getattr(answer, "created", None)
        if isinstance(created, int) and created < len(page):  # Label Studio drops a prediction its config rejects
            log.error("Label Studio kept %d of %d predictions sent to project %s: it drops, without an error, "
                      "those whose result does not fit the label config (its server log names them)",
                      created, len(page), project)
    if requests:
        show_scores(client, int(project), str(requests[0]["model_version"]))
    return len(requests)


def already_imported(client: Any, project: str, task_ids: list[str], model_version: str) -> set[str]:
    """The tasks among ``task_ids`` that already hold a prediction of ``model_version`` in Label Studio.

    Asked only after an import call failed without an answer (a timeout): Label Studio may have stored
    that page anyway, and sending it again would duplicate every prediction in it. A prediction counts
    under its readable name or the bare key (:func:`backend.labelstudio.modelname.same_version`).
    """
    numeric = [int(t) for t in task_ids if str(t).isdigit()]
    found = set()
    for task in iter_tasks(client, int(project), with_annotations=True, task_ids=numeric):
        if any(same_version(field(p, "model_version", None), model_version)
               for p in (field(task, "predictions", None) or [])):
            found.add(str(field(task, "id")))
    return found
