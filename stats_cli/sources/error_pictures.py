"""Pictures of the confirmed errors of an image project, fetched from the source when the report is built.

The report's grid (:mod:`stats_cli.report.sections.error_images`) shows each item whose expert gold label
differs from its original one; a reader checks a correction at a glance. The images are read from the
source instance with its own credentials (:class:`backend.images.fetch.ImageFetcher`, the same SSRF-safe
fetcher the judges use) and shrunk to thumbnails (:mod:`backend.images.thumbnail`). An image that cannot be
fetched is that item's reason, never a broken picture; a pull without the source gives no grid at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from stats_cli.sources.audit_data import AuditData
from backend.api import thumbnail_png, source_fetch, iter_tasks, field as task_field

Fetch = Callable[[str, str, str], Any]  # (reference, variable, task id) -> ImagePart


@dataclass(frozen=True)
class ErrorImage:
    """One confirmed error's thumbnail (``png``), or why there is none."""

    item_id: str
    png: bytes | None = field(default=None, repr=False)
    reason: str = ""


@dataclass(frozen=True)
class ErrorImages:
    """The thumbnails by item id; ``variable`` names the image input shown (the first of the spec)."""

    variable: str
    images: Mapping[str, ErrorImage] = field(default_factory=dict)
    unavailable: str = ""  # why no image could be fetched at all (the source fetcher could not be made)


def confirmed_errors(data: AuditData) -> list[tuple[Any, str]]:
    """(item, gold) of every item the experts settled on a label other than the original one."""
    return [(it, gold) for it, gold in data.reviewed() if data.is_error(it, gold)]


def _thumbnail(fetch: Fetch, task_id: str, variable: str, reference: Any) -> ErrorImage:
    if not isinstance(reference, str) or not reference.strip():
        return ErrorImage(task_id, reason="the task holds no image reference")
    try:
        return ErrorImage(task_id, png=thumbnail_png(fetch(reference, variable, task_id)))
    except Exception as exc:  # noqa: BLE001 - ImageRefused, CopyRefused, a network error: this item's reason
        reason = getattr(exc, "reason", None) or type(exc).__name__
        detail = getattr(exc, "detail", None)
        return ErrorImage(task_id, reason=f"{reason}: {detail}" if detail else str(reason))


def fetch_error_images(client: Any, data: AuditData, *, fetch: Fetch | None = None,
                       references: Mapping[str, Any] | None = None, settings: Any = None) -> ErrorImages | None:
    """Thumbnails of the confirmed errors (None for a project without image inputs).

    ``references`` (task id -> image reference) skips the source listing; tests and callers that already
    hold the tasks pass it.
    """
    spec = data.spec
    if not spec.image_fields:
        return None
    variable = spec.image_fields[0]
    ids = [str(it.id) for it, _gold in confirmed_errors(data)]
    if not ids:
        return ErrorImages(variable)
    if fetch is None:
        fetch = source_fetch(client, settings=settings)
    refs = dict(references) if references is not None else _references(client, data.project, ids, spec.fields[variable])
    return ErrorImages(variable, {t: _thumbnail(fetch, t, variable, refs.get(t)) for t in ids})


def _references(client: Any, project: str, ids: Sequence[str], data_field: str) -> dict[str, Any]:
    numeric = [int(t) for t in ids if str(t).isdigit()]
    out: dict[str, Any] = {}
    for task in iter_tasks(client, int(project), task_ids=numeric):
        out[str(task_field(task, "id"))] = (task_field(task, "data", None) or {}).get(data_field)
    return out


__all__ = ["ErrorImage", "ErrorImages", "confirmed_errors", "fetch_error_images"]
