"""Give predictions stored under an older name of the same run its current name (no re-score).

Label Studio matches ``model_version`` strings exactly: the score column averages the predictions whose
string equals the project's, and "Retrieve predictions" skips the tasks holding the backend's. A project
scored before predictions had readable names (the bare ``label-audit-<fingerprint>``), or under another
threshold (same key, other name: :mod:`backend.labelstudio.modelname`), would keep those predictions out
of the score column and ask for them again. So after an import, the predictions of every stored string
with the same key and another text are renamed in place — one ``PATCH`` each, once: the next import
finds nothing to rename (one ``model-versions`` call). Their results, scores and suspect markers (built
from the key) are unchanged; the ledger is not touched.
"""

from __future__ import annotations

import logging
from typing import Any

from backend.labelstudio.modelname import same_version

log = logging.getLogger(__name__)


def _request(client: Any, method: str, path: str, **kwargs: Any) -> Any:
    resp = client._client_wrapper.httpx_client.request(path, method=method, **kwargs)
    resp.raise_for_status()
    return resp.json() if resp.content else None


def older_names(client: Any, project_id: int, ls_version: str) -> list[str]:
    """The other strings this project's predictions carry for the same run as ``ls_version``."""
    stored = _request(client, "GET", f"api/projects/{int(project_id)}/model-versions/") or {}
    names = stored.keys() if isinstance(stored, dict) else [v.get("model_version") for v in stored]
    return [n for n in names if n and n != ls_version and same_version(n, ls_version)]


def rename_predictions(client: Any, project_id: int, ls_version: str) -> int:
    """Rename this run's predictions stored under an older name to ``ls_version``; returns how many."""
    older = set(older_names(client, project_id, ls_version))
    if not older:
        return 0
    renamed = 0
    for prediction in _request(client, "GET", "api/predictions/", params={"project": int(project_id)}) or []:
        if prediction.get("model_version") in older:
            _request(client, "PATCH", f"api/predictions/{int(prediction['id'])}/",
                     json={"model_version": ls_version})
            renamed += 1
    log.info("project %s: %d predictions renamed to %r", project_id, renamed, ls_version)
    return renamed
