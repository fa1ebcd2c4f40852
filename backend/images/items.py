"""An item's image fields turned into the images its judges see.

Why here and not in the engine: an item is complete (and its input hash known) only once its images are
fetched, and a refused image is that item's error before any member runs. Every place where Label Studio
tasks become items (:func:`backend.labelstudio.tasks.tasks_to_items`: the worker job, the backend's
stored-verdict check, the dry run) calls :func:`attach_images` through the one fetcher the settings give.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from backend.task.dataset import Item, ItemError
from backend.images.fetch import ImageFetcher, ImageRefused
from backend.providers.image_part import placeholder
from backend.task.spec import TaskSpec


def fetcher_from_settings(settings: Any) -> ImageFetcher | None:
    """The fetcher of the configured Label Studio (``LABEL_STUDIO_URL``/``LABEL_STUDIO_API_KEY``, the storage
    hosts of ``LABEL_AUDIT_IMAGE_HOSTS``, ``LABEL_AUDIT_IMAGE_MAX_BYTES``); None without a Label Studio URL."""
    url = getattr(settings, "label_studio_url", None)
    if not url:
        return None
    return ImageFetcher(url, getattr(settings, "label_studio_token", None),
                        max_bytes=settings.image_max_bytes, allowed_hosts=settings.image_hosts)


def attach_images(item: Item, spec: TaskSpec, fetcher: ImageFetcher | None, *, task_id: int | None = None) -> Item:
    """``item`` with its image fields fetched: ``images`` in spec order, each field its placeholder text.

    Raises :class:`ImageRefused` (the item's error, with its reason code) for the first image that cannot
    be fetched; nothing is fetched for a refused reference. An item of a spec without image fields is
    returned as is.
    """
    if not spec.image_fields:
        return item
    if fetcher is None:
        raise ImageRefused("image_fetch", "no Label Studio URL is configured to fetch the task's images from "
                           "(LABEL_STUDIO_URL)")
    fields = dict(item.fields)
    images = []
    for position, variable in enumerate(spec.image_fields, start=1):
        images.append(fetcher.fetch(fields[variable], variable=variable, task_id=task_id))
        fields[variable] = placeholder(position)
    return replace(item, fields=fields, images=tuple(images))


def with_images(entries: list[Item | ItemError], spec: TaskSpec, *, settings: Any) -> list[Item | ItemError]:
    """A file's items with their images fetched (``label-audit score`` of an image spec): references are
    data URLs or paths and URLs of the configured Label Studio (``settings``, resolved by the command); a
    refused image is the item's error."""
    if not spec.image_fields:
        return entries
    fetcher = fetcher_from_settings(settings)
    out: list[Item | ItemError] = []
    try:
        for entry in entries:
            if isinstance(entry, ItemError):
                out.append(entry)
                continue
            try:
                out.append(attach_images(entry, spec, fetcher))
            except ImageRefused as exc:
                out.append(ItemError(line=entry.line, id=entry.id, reason=exc.reason, detail=exc.detail))
    finally:
        if fetcher is not None:
            fetcher.close()
    return out


__all__ = ["attach_images", "fetcher_from_settings", "with_images"]
