"""The lead's view of a scored project: a sortable score column and a "Suspected label errors" tab.

Measured on Label Studio 1.23.2 (``data_manager/managers.py``): the Data Manager's *Prediction score*
is the average score of the predictions whose ``model_version`` equals the project's
``model_version``. That field is ``""`` on a new project (so the column is null for every task) and
the backend's *title* once a model is connected — never our ``label-audit-<fingerprint>``. Label Studio
accepts a project ``model_version`` only when a live model has that title or predictions carry that
version, so it is pointed at ours right after our predictions are imported.

The suspects tab is a saved Data Manager view shared by the organization. Data Manager filters cannot
compare a prediction with an annotation, so each flagged prediction carries a marker the
``predictions_results`` *contains* filter can match: its result region's ``id`` is
``<model_version>-suspect`` (a region id is free text to Label Studio and not shown to annotators).
The view filters on that marker and orders by score, highest first, so it fills itself as workers
import predictions; it is rewritten only when the model version changes.

The marker is built from the run's *key* (``label-audit-<fingerprint>``), the project's
``model_version`` from the readable name the predictions carry (:mod:`backend.labelstudio.modelname`):
predictions imported before names existed carry the bare key and the same marker, so the tab keeps them.
"""

from __future__ import annotations

import logging
from typing import Any

from backend.task.marks import mark_result, suspect_marker  # noqa: F401  (re-exported: the tab and its tests read them here)
from backend.labelstudio.modelname import version_key
from backend.labelstudio.rename import rename_predictions
import httpx
from label_studio_sdk.core.api_error import ApiError

log = logging.getLogger(__name__)

SUSPECTS_TITLE = "Suspected label errors"
SCORE_COLUMN = "tasks:predictions_score"
# Columns the tabs we create hide: bookkeeping that pushes the score and the labels off screen.
# (Label Studio's own default tab hides the score column too, which is why nobody found it.)
HIDDEN_COLUMNS = [
    "tasks:inner_id", "tasks:annotations_ids", "tasks:predictions_model_versions", "tasks:file_upload",
    "tasks:storage_filename", "tasks:created_at", "tasks:updated_at", "tasks:updated_by",
    "tasks:avg_lead_time", "tasks:draft_exists", "tasks:cancelled_annotations", "tasks:completed_at",
    "tasks:annotations_results", "tasks:predictions_results",  # raw JSON a reader cannot use in a list
]
# The suspects tab shows them anyway, beside the score: "Annotation results" holds the original label,
# "Prediction results" the ensemble's (Label Studio prints each as its result's JSON, label included).
LABEL_COLUMNS = ("tasks:annotations_results", "tasks:predictions_results")
# ... and which ensemble said so: the predictions' readable name (judges, rule, key; modelname.py).
# The labeling stream's prediction tab cuts any name over 15 characters to its first 8 and last 6.
NAME_COLUMN = "tasks:predictions_model_versions"
SUSPECTS_HIDDEN = [c for c in HIDDEN_COLUMNS if c not in (*LABEL_COLUMNS, NAME_COLUMN)]
# Wide enough that the label is on screen: a cell shows three lines, and the label comes after the
# region's names (measured in Chromium at 1400 px: at the default width it was cut off).
LABEL_WIDTH = 330
NAME_WIDTH = 200


def suspects_view_data(model_version: str) -> dict[str, Any]:
    """The saved view: flagged predictions of this version, highest score first."""
    return {
        "title": SUSPECTS_TITLE,
        "filters": {
            "conjunction": "and",
            "items": [
                {"filter": "filter:tasks:predictions_results", "operator": "contains", "type": "String",
                 "value": suspect_marker(model_version)},
            ],
        },
        "ordering": [f"-{SCORE_COLUMN}"],
        "hiddenColumns": {"explore": list(SUSPECTS_HIDDEN), "labeling": list(HIDDEN_COLUMNS)},
        "columnsWidth": {**{column: LABEL_WIDTH for column in LABEL_COLUMNS}, NAME_COLUMN: NAME_WIDTH},
    }


def _request(client: Any, method: str, path: str, **kwargs: Any) -> Any:
    """A raw API call through the SDK's authenticated HTTP client.

    The SDK's typed view model has no ``title`` (the tab name), so views go through the raw endpoint.
    """
    resp = client._client_wrapper.httpx_client.request(path, method=method, **kwargs)
    resp.raise_for_status()
    return resp.json() if resp.content else None


def point_model_version(client: Any, project_id: int, model_version: str) -> bool:
    """Make the project's score column average our predictions; True when it was changed."""
    current = client.projects.get(id=int(project_id)).model_version
    if current == model_version:
        return False
    client.projects.update(id=int(project_id), model_version=model_version)
    return True


def _views(client: Any, project_id: int) -> list[dict[str, Any]]:
    return list(_request(client, "GET", "api/dm/views", params={"project": int(project_id)}) or [])


def _save_view(client: Any, project_id: int, view_id: int, data: dict[str, Any]) -> None:
    _request(client, "PATCH", f"api/dm/views/{view_id}", json={"project": int(project_id), "data": data})


def unhide_score_column(client: Any, project_id: int) -> int:
    """Show the score column in every existing tab (Label Studio hides it by default); returns tabs changed."""
    changed = 0
    for view in _views(client, project_id):
        data = dict(view.get("data") or {})
        hidden = dict(data.get("hiddenColumns") or {})
        if SCORE_COLUMN not in (hidden.get("explore") or []):
            continue
        hidden["explore"] = [c for c in hidden["explore"] if c != SCORE_COLUMN]
        _save_view(client, project_id, int(view["id"]), {**data, "hiddenColumns": hidden})
        changed += 1
    return changed


def ensure_suspects_view(client: Any, project_id: int, model_version: str) -> int:
    """Create or update the project's "Suspected label errors" tab; returns the view id.

    A project with no tab yet also gets a "Default" tab first (every task, score shown, highest score
    first), so the Data Manager does not open on the suspects alone and the lead needs no third tab to
    rank the whole project.
    """
    views = _views(client, project_id)
    wanted = suspects_view_data(model_version)
    for view in views:
        data = view.get("data") or {}
        if data.get("title") == SUSPECTS_TITLE:
            if any(data.get(k) != wanted[k] for k in ("filters", "ordering", "hiddenColumns", "columnsWidth")):
                _save_view(client, project_id, int(view["id"]), {**data, **wanted})
            return int(view["id"])
    if not views:
        hidden = {"explore": list(HIDDEN_COLUMNS), "labeling": list(HIDDEN_COLUMNS)}
        default = {"title": "Default", "ordering": wanted["ordering"], "hiddenColumns": hidden}
        _request(client, "POST", "api/dm/views", json={"project": int(project_id), "data": default})
    _request(client, "POST", "api/dm/views", json={"project": int(project_id), "data": wanted})
    return _dedupe(client, project_id)


def _dedupe(client: Any, project_id: int) -> int:
    """Keep the oldest suspects tab (two workers may create one at once); returns its id."""
    ids = sorted(int(v["id"]) for v in _views(client, project_id)
                 if (v.get("data") or {}).get("title") == SUSPECTS_TITLE)
    for extra in ids[1:]:
        _request(client, "DELETE", f"api/dm/views/{extra}")
    return ids[0]


def show_scores(client: Any, project_id: int, model_version: str) -> None:
    """After an import: score column on our version (and shown), the suspects tab up to date.

    ``model_version`` is what the imported predictions carry (a readable name or the bare key).
    Never fails the import it follows: a refusal is logged (the predictions are in already, and the
    next import tries again).
    """
    try:
        rename_predictions(client, project_id, model_version)  # an older name of this run: same column
        if point_model_version(client, project_id, model_version):
            unhide_score_column(client, project_id)
        ensure_suspects_view(client, project_id, version_key(model_version) or model_version)
    except (ApiError, httpx.HTTPError) as exc:
        log.warning("could not update the score column / suspects tab of project %s: %s", project_id,
                    getattr(exc, "status_code", type(exc).__name__))
