"""Images in review tasks: each source image replaced by a neutral copy uploaded to the review instance.

A review task must never hold the source's image reference: on the review instance it would not load
(the experts have no source account) or, through a shared storage, it would name the source file —
whose name may hold the label or the task id. So for a project with image inputs every review task's
image field points at a copy uploaded to the instance holding that review project
(:mod:`backend.images.review_copy`: pixels only, random name; :mod:`backend.labelstudio.uploads`).

One :class:`ReviewImages` lives for one ``review push`` or ``review reconcile``: each source image is
fetched and re-encoded once, uploaded once per review instance (the copy's URL serves every project of
that instance: Label Studio lets every member of the organization read it), and a failure is that
item's error — reported and counted, the item retried on the next run — never the run's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from backend.common import defaults
from backend.images.review_copy import CopyRefused, ReviewCopy, neutral_copy
from backend.labelstudio.instances import origin
from backend.labelstudio.uploads import UploadFailed, upload_file
from backend.images.fetch import ImageFetcher
from backend.labelstudio.client import iter_tasks
from backend.review.review_store import ROUND_REVIEW

Fetch = Callable[[str, str, str], Any]  # (reference, variable, task id) -> ImagePart


def image_data_fields(spec: Any) -> dict[str, str]:
    """Data field -> template variable, for the spec's image inputs."""
    return {str(spec.fields[v]): v for v in getattr(spec, "image_fields", ()) or ()}


def client_origin(client: Any) -> Any:
    """The instance a client talks to (the key copies are shared under)."""
    return origin(client._client_wrapper.get_base_url())


def source_fetch(client: Any, *, settings: Any = None) -> Fetch:
    """Fetch images from the source instance with its own credentials (:class:`backend.images.fetch.ImageFetcher`).

    The instance and token are the client's (``--url``/``--token`` or the environment); the storage hosts and
    the size limit come from ``settings`` (``LABEL_AUDIT_IMAGE_HOSTS``, ``LABEL_AUDIT_IMAGE_MAX_BYTES``), as
    for the judges (None: the defaults). Made only for a project with images.
    """
    max_bytes = settings.image_max_bytes if settings is not None else defaults.IMAGE_MAX_BYTES
    hosts = settings.image_hosts if settings is not None else ()
    wrapper = client._client_wrapper  # the SDK keeps the URL and token it was made with
    fetcher = ImageFetcher(wrapper.get_base_url(), wrapper._tokens_client.api_key,
                           max_bytes=max_bytes, allowed_hosts=hosts)

    def fetch(reference: str, variable: str, task_id: str) -> Any:
        return fetcher.fetch(reference, variable=variable, task_id=int(task_id) if str(task_id).isdigit() else None)

    return fetch


def _reason(exc: Exception) -> str:
    reason = getattr(exc, "reason", None)
    detail = getattr(exc, "detail", None)
    if reason:
        return f"{reason}: {detail}" if detail else str(reason)
    return str(exc) or type(exc).__name__


@dataclass
class ReviewImages:
    """The copies made during one run. ``fields``: data field -> variable of the image inputs."""

    fields: Mapping[str, str]
    fetch: Fetch
    copies: dict[tuple[str, str], ReviewCopy | str] = field(default_factory=dict)  # str: why there is none
    served: dict[tuple[Any, str, str], str] = field(default_factory=dict)  # (instance, task, field) -> URL

    @classmethod
    def for_source(cls, client: Any, spec: Any, *, fetch: Fetch | None = None,
                   settings: Any = None) -> "ReviewImages | None":
        """The images of a source project (None when it has no image input); ``settings``: the run's."""
        fields = image_data_fields(spec)
        if not fields:
            return None
        return cls(fields=fields, fetch=fetch or source_fetch(client, settings=settings))

    def remember(self, client: Any, task_id: str, data_field: str, url: str) -> None:
        """A copy already on ``client``'s instance (e.g. in a round-1 task there): reused, not uploaded again."""
        self.served[(client_origin(client), str(task_id), data_field)] = url

    def _copy(self, task_id: str, data_field: str, reference: Any) -> ReviewCopy:
        key = (task_id, data_field)
        if key not in self.copies:
            try:
                if not isinstance(reference, str) or not reference.strip():
                    raise CopyRefused(f"field {data_field!r} holds no image reference")
                part = self.fetch(reference, self.fields[data_field], task_id)
                self.copies[key] = neutral_copy(part)
            except Exception as exc:  # noqa: BLE001 - ImageRefused, CopyRefused, a network error: this item's error
                self.copies[key] = f"image {data_field!r} not copied for review: {_reason(exc)}"
        got = self.copies[key]
        if isinstance(got, str):
            raise CopyRefused(got)
        return got

    def _url(self, client: Any, project_id: int, task_id: str, data_field: str, reference: Any) -> str:
        key = (client_origin(client), task_id, data_field)
        if key not in self.served:
            copy = self._copy(task_id, data_field, reference)
            try:
                self.served[key] = upload_file(client, project_id, name=copy.name, data=copy.data, mime=copy.mime)
            except (UploadFailed, ValueError, OSError) as exc:
                raise CopyRefused(f"image {data_field!r} not uploaded to the review instance: {_reason(exc)}") from None
            except Exception as exc:  # noqa: BLE001 - the SDK's transport errors (httpx) are this item's error too
                raise CopyRefused(f"image {data_field!r} not uploaded to the review instance: "
                                  f"{type(exc).__name__}") from None
        return self.served[key]

    def prepare(self, inputs: Mapping[str, Mapping[str, Any]], *, client: Any,
                project_id: int) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """Review-task data for ``client``'s project: every image field replaced by its copy's URL there.

        Returns ``(data by task id, error by task id)``; a task with an error is left out (never imported
        holding the source reference).
        """
        ready: dict[str, dict[str, Any]] = {}
        errors: dict[str, str] = {}
        for task_id, data in inputs.items():
            out = dict(data)
            try:
                for data_field in self.fields:
                    if data_field in out:
                        out[data_field] = self._url(client, project_id, str(task_id), data_field, out[data_field])
            except CopyRefused as exc:
                errors[str(task_id)] = str(exc)
                continue
            ready[str(task_id)] = out
        return ready, errors


def reuse_round1_copies(images: ReviewImages, clients: Any, store: Any, source_key: str,
                        task_ids: Sequence[str]) -> int:
    """Remember the copies round-1 tasks on the shared review instance already show: how many were found.

    Reconciliation lives on the shared instance; a round-1 project there (an expert without an own
    instance) already holds an uploaded copy of each of its images, so the round-2 task points at that one.
    Copies on other instances cannot be read there and are uploaded again.
    """
    wanted = {str(t) for t in task_ids}
    shared = clients.shared
    here = client_origin(shared)
    found = 0
    for project in store.projects(source_key, round=ROUND_REVIEW):
        try:
            client = clients.for_instance(project.instance)
        except ValueError:
            continue
        if client_origin(client) != here:
            continue
        by_task = {a.ls_task_id: a.task_id for a in store.assignments(source_key, round=ROUND_REVIEW,
                                                                         expert=project.expert)
                   if a.ls_task_id is not None and a.task_id in wanted}
        if not by_task:
            continue
        for task in iter_tasks(client, project.ls_project_id, task_ids=sorted(by_task)):
            data = getattr(task, "data", None) or {}
            for data_field in images.fields:
                if isinstance(data.get(data_field), str) and int(task.id) in by_task:
                    images.remember(shared, by_task[int(task.id)], data_field, data[data_field])
                    found += 1
    return found


def prepare_or_pass(images: ReviewImages | None, inputs: Mapping[str, Mapping[str, Any]], *, client: Any,
                    project_id: int) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """``images.prepare`` for a project with images; the inputs as they are for one without."""
    if images is None:
        return {k: dict(v) for k, v in inputs.items()}, {}
    return images.prepare(inputs, client=client, project_id=project_id)


__all__ = ["ReviewImages", "image_data_fields", "prepare_or_pass", "reuse_round1_copies", "source_fetch"]
