"""Pull an audit: source tasks through the SDK (paged, cached), ledger, reviews, probes -> AuditData.

Label Studio is read only through ``label_studio_sdk`` via the helpers
(:mod:`backend.labelstudio.client`); verdicts come from the ledger, expert answers from the review
store and probe scores from the probe store. Nothing here recomputes what those modules own.
The token is passed to the SDK and never printed, logged or cached. Shared by `audit-stats report` and
`audit-stats sync-gold`, so it lives beside :mod:`stats_cli.sources.audit_data`, outside the report package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from backend.api import crowd_by_item, crowd_labels
from backend.api import Settings, review_clients
from backend.api import Ledger, pass_blocks, read_with_scored_flags
from backend.api import refresh_review as refresh_review_outcomes
from backend.api import load_audited_source
from backend.api import ReviewStore
from backend.api import TaskSpec

from stats_cli.sources.task_cache import STAMP_FIELDS, TaskCache, stamp_of
from stats_cli.sources.audit_data import AuditData
from stats_cli.sources.audit_sources import load_models, probe_rows, review_state

PAGE_SIZE = 500
EXPORT_TIMEOUT_S = 1800  # the SDK waits 60 s for an export by default; 50k tasks take longer
BY_ID_CHUNK = 200  # ids per filtered listing: keeps the query string well under URL limits


@dataclass
class PullStats:
    """What one pull did, for the report's metadata and the benchmark."""

    tasks: int = 0
    fetched: int = 0
    from_cache: int = 0
    notes: list[str] = field(default_factory=list)


def _progress(enabled: bool) -> Progress:
    """A progress bar on stderr, so stdout carries only the report."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(stderr=True), transient=True, disable=not enabled)


def _raw_pages(client: Any, project: int, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Task listing as plain JSON through the SDK's own authenticated HTTP client.

    The typed pager builds a pydantic model per task (about 2 ms each, longer than the server
    takes to answer the light listing); the report only needs a few keys, so it reads the JSON.
    """
    http = client._client_wrapper.httpx_client  # the SDK's transport: same auth, retries, timeout
    page = 1
    while True:
        resp = http.request("api/tasks", method="GET",
                            params={"project": project, "page": page, "page_size": PAGE_SIZE, **params})
        if resp.status_code == 404 and page > 1:  # Label Studio answers 404 past the last page
            return
        resp.raise_for_status()
        body = resp.json()
        tasks = body.get("tasks", []) if isinstance(body, dict) else body
        yield from tasks
        if len(tasks) < PAGE_SIZE:
            return
        page += 1


def list_stamps(client: Any, project: int) -> dict[str, dict[str, Any]]:
    """Id and version fields of every task (a light listing: no data, no annotations)."""
    rows = _raw_pages(client, project, {"include": ",".join(("id", *STAMP_FIELDS))})
    return {str(row["id"]): row for row in rows}


def pull_tasks(client: Any, project: int, *, cache: TaskCache | None = None, progress: bool = False,
               min_annotations: int = 1, stats: PullStats | None = None) -> list[dict[str, Any]]:
    """Tasks of ``project`` with their annotations, fetching only what changed since the cached pull.

    Only tasks with at least ``min_annotations`` annotations are fetched in full: the report needs
    the source annotations only where several annotators labelled a task (the ledger holds the
    original label of the rest), while `sync-gold` needs every annotated task (``min_annotations=1``)
    to find its own earlier gold annotation.
    """
    stats = stats if stats is not None else PullStats()
    light = list_stamps(client, project)
    wanted = {tid: stamp_of(row) for tid, row in light.items() if int(row.get("total_annotations") or 0) >= min_annotations}
    cached = cache.stamps() if cache is not None else {}
    fresh = [tid for tid, st in wanted.items() if cached.get(tid) != st]
    fresh_set = set(fresh)
    tasks: dict[str, dict[str, Any]] = cache.get_many([t for t in wanted if t not in fresh_set]) if cache else {}
    stats.tasks, stats.from_cache = len(light), len(tasks)
    got: list[dict[str, Any]] = []
    with _progress(progress) as bar:
        job = bar.add_task(f"project {project}: annotated tasks", total=len(wanted), completed=len(tasks))
        for row in _fetch(client, project, fresh, whole=len(fresh) > len(light) // 2):
            tid = str(row["id"])
            if tid in fresh_set:
                got.append(row)
                tasks[tid] = row
                bar.advance(job)
    stats.fetched = len(got)
    if cache is not None:
        cache.put_many((str(r["id"]), wanted[str(r["id"])], r) for r in got)
        cache.forget_except(wanted)
    return [tasks[tid] for tid in wanted if tid in tasks]


def _fetch(client: Any, project: int, ids: list[str], *, whole: bool) -> Iterator[dict[str, Any]]:
    if not ids:
        return
    if whole:  # most tasks needed: one export is ~2.5x faster than the paged listing with annotations
        yield from client.projects.exports.as_json(project, timeout=EXPORT_TIMEOUT_S)
        return
    for start in range(0, len(ids), BY_ID_CHUNK):
        chunk = [int(t) for t in ids[start:start + BY_ID_CHUNK]]
        query = json.dumps({"selectedItems": {"all": False, "included": chunk}})
        yield from _raw_pages(client, project, {"fields": "all", "query": query})


def source_crowd(tasks: list[dict[str, Any]], spec: TaskSpec) -> dict[str, dict[str, str]]:
    """Item id -> annotator -> label from the source annotations (gold annotations left out, as the worker does)."""
    return crowd_by_item(lab for task in tasks for lab in crowd_labels(task, spec))


def pull_audit(
    project: int,
    *,
    client: Any,
    db_url: str | None = None,
    cache: TaskCache | None = None,
    progress: bool = False,
    models_file: str | None = None,
    model_version: str | None = None,
    refresh_review: bool = True,
    stats: PullStats | None = None,
    images: bool = False,
    settings: Settings | None = None,
) -> AuditData:
    """Everything one report needs about ``project``, as :class:`AuditData`.

    Parameters
    ----------
    project : int
        Source project id in Label Studio (also the ledger's and review store's project key).
    client : LabelStudio
        Connected SDK client (see :func:`backend.labelstudio.client.connect`).
    db_url : str, optional
        Ledger / review / probe store URL (default ``DATABASE_URL`` or the local SQLite file).
    cache : TaskCache, optional
        Reuse unchanged source tasks from an earlier pull.
    refresh_review : bool
        Re-read the review projects through the SDK before reporting (the review store's ``collect_answers``).
    images : bool
        Fetch thumbnails of the confirmed errors of an image project (the HTML report's grid).
    settings : Settings, optional
        The command's (default: the defaults): the ledger, the review instances, the image fetch limits.
    """
    stats = stats if stats is not None else PullStats()
    settings = settings if settings is not None else Settings()
    ledger = Ledger(db_url or settings.store_url)
    source = load_audited_source(client, ledger, int(project), spec_options=settings.spec_options())
    tasks = pull_tasks(client, project, cache=cache, progress=progress, min_annotations=2, stats=stats)
    version = model_version or ledger.latest_version(source.key)
    items, scored_flags = ([], None) if version is None else read_with_scored_flags(ledger, source.key, version)
    last_pass = None if version is None else pass_blocks(ledger, source.key, version)
    if not items:
        stats.notes.append("the ledger holds no scored items for this project yet")
    known = {str(it.id) for it in items}
    crowd = source_crowd(tasks, source.spec)
    if refresh_review:  # the review module writes the outcomes; the read below only reads them
        # The answers live on the review instances (LABEL_AUDIT_REVIEW_URL, LABEL_AUDIT_EXPERT_INSTANCES).
        refresh_review_outcomes(review_clients(client, settings), ReviewStore(db_engine=ledger.db_engine), source, items)
    review = review_state(ledger, source, items)
    models = None
    if models_file:
        models, bad = load_models(models_file)
        stats.notes += [f"--models {models_file}: skipped {err}" for err in bad]
    data = AuditData(
        project=source.key,
        spec=source.spec,
        items=tuple(items),
        routed=review.routed,
        reviews=review.reviews,
        experts=review.experts,
        gold_labels=review.gold_labels,
        sampled=review.sampled,
        sample=review.sample,
        ignored_answers=review.ignored,
        crowd={k: v for k, v in crowd.items() if k in known},
        probes=probe_rows(db_engine=ledger.db_engine),
        models=models,
        scored_flags=scored_flags,
        last_pass=last_pass,
    )
    if images and source.spec.image_fields:
        # heavy: error pictures need PIL and the image fetcher; only a pull that asks for them
        from stats_cli.sources.error_pictures import ErrorImages, fetch_error_images

        try:
            data = replace(data, error_images=fetch_error_images(client, data, settings=settings))
        except Exception as exc:  # noqa: BLE001 - no thumbnails is a note, never a lost report
            why = f"{type(exc).__name__}: {exc}" if isinstance(exc, ValueError) else type(exc).__name__
            data = replace(data, error_images=ErrorImages(source.spec.image_fields[0], unavailable=why))
    return data
