"""Uploading a file to a Label Studio project without creating a task, and the URL it is served at.

Label Studio 1.23.2's import endpoint takes a multipart file: ``POST /api/projects/{id}/import`` with
``commit_to_project=false`` stores it as a ``FileUpload`` of that project and answers its id in
``file_upload_ids`` instead of making a task of it (an image file would otherwise become a task whose
only field is ``$undefined$``). ``GET /api/import/file-upload/{id}`` then names the stored file
(``upload/<project>/<8 hex>-<name>``, the storage name: its serializer has ``use_url=False``), which the
instance serves under its media URL ``/data/`` (``data/upload/<path>`` in ``data_import/urls.py``) to the
members of its organization only (``FileUpload.has_permission``): a task of that instance can show it to
its own users, with their session or token, and no other credential.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from backend.labelstudio.instances import origin


class UploadFailed(ValueError):
    """Label Studio did not store the file (status and detail only: never headers or the token)."""


def upload_file(client: Any, project_id: int, *, name: str, data: bytes, mime: str) -> str:
    """Store ``data`` as a file of ``project_id`` on ``client``'s instance: the path it is served at.

    The answer is the instance-relative path (``/data/upload/...``) when Label Studio returns an absolute
    URL on its own origin, so the task keeps working behind another host name.
    """
    http = client._client_wrapper.httpx_client  # the SDK's transport (auth, retries, timeout); no typed upload call
    resp = http.request(f"api/projects/{int(project_id)}/import", method="POST",
                        params={"commit_to_project": "false"}, files={"file": (name, data, mime)})
    if resp.status_code >= 400:
        raise UploadFailed(f"upload refused by Label Studio (HTTP {resp.status_code}): {_detail(resp)}")
    ids = (resp.json() or {}).get("file_upload_ids") or []
    if len(ids) != 1:
        raise UploadFailed(f"upload answered {len(ids)} file ids, expected 1")
    stored = client.files.get(int(ids[0]))
    return served_path(str(stored.file), base_url=client._client_wrapper.get_base_url())


MEDIA_URL = "/data/"  # Label Studio's MEDIA_URL: where uploaded files are served


def served_path(name: str, *, base_url: str | None) -> str:
    """Where the instance serves a stored file: ``/data/<storage name>`` (under the base URL's path, if any).

    An absolute URL on ``base_url``'s origin is made instance-relative, so the task keeps working behind
    another host name; any other absolute URL is kept as it is.
    """
    parts = urlsplit(name)
    if parts.scheme:
        if base_url and origin(name) == origin(base_url):
            return parts.path + (f"?{parts.query}" if parts.query else "")
        return name
    if name.startswith("/"):
        return name
    prefix = urlsplit(base_url).path.rstrip("/") if base_url else ""
    return f"{prefix}{MEDIA_URL}{name}"


def _detail(resp: Any) -> str:
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:200]
    return str(body.get("detail") or body.get("validation_errors") or body)[:200] if isinstance(body, dict) else str(body)[:200]


__all__ = ["UploadFailed", "served_path", "upload_file"]
