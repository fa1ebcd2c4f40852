"""The RQ job: score a batch of Label Studio tasks, record them in the ledger, import predictions.

Safe to run twice: tasks already in the ledger for this ``model_version`` are skipped, every write
is an upsert, and predictions leave through the ledger's outbox (:mod:`backend.worker.importer`: one
importer job per project imports what is not marked imported yet, in a few large calls). A worker
killed mid-job therefore loses at most the batch's unsaved tail; the retried job (rq ``Retry``,
also applied to abandoned jobs) scores only what is missing and stores no duplicate.

Transient provider failures (server down, timeouts, rate limits) are not verdicts: items with such a
member error are left unrecorded and the job raises :class:`TransientScoringError`, so rq retries it
with backoff once the LLM server is back.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from rq import get_current_job

from backend.confident.project import prepare_for_project, share_fits
from backend.images.items import fetcher_from_settings
from backend.scoring.question_engine import make_engine
from backend.labelstudio.predictions import ls_client
from backend.labelstudio.tasks import error_result, tasks_to_items
from backend.scoring.results import ItemResult, input_hash
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.importer import request_flush
from backend.worker.safety import RefusedJob, scoring_queue
from backend.worker.start import worker_settings
from backend.worker import resources

log = logging.getLogger(__name__)

SAVE_EVERY = 4


class TransientScoringError(RuntimeError):
    """Some items could not be scored for a passing reason; rq retries the job with backoff."""


def is_transient(result: ItemResult) -> bool:
    """True when a member failed for a reason that a later retry can fix (the provider's own judgement)."""
    return any(m.error is not None and m.error.retryable for m in result.members)


def score_tasks(
    *,
    project: str,
    tasks: Sequence[Mapping[str, Any]],
    label_config: str,
    model_version: str,
    job_key: str,
    settings: Settings | None = None,
) -> dict[str, int]:
    """Score ``tasks`` of ``project`` with this worker's own ensemble and bulk-import their predictions.

    The job carries data only; the ensemble (members, endpoints, key names) comes from the worker's
    settings, resolved once at its start (:mod:`backend.worker.start`; ``settings`` for a direct call, which
    a queued job cannot give: :mod:`backend.worker.safety`). A job whose ``model_version`` is not this
    worker's is refused (logged, recorded in the job log, raised as :class:`backend.worker.safety.RefusedJob`):
    it was queued for another ensemble.
    """
    settings = settings if settings is not None else worker_settings()
    ledger = resources.ledger(settings.store_url)
    cfg = EnsembleConfig(settings)
    attempt = ledger.jobs.started(job_key, project=project, model_version=model_version, n_tasks=len(tasks))
    try:
        spec = cfg.spec(label_config)
    except ValueError as exc:  # an unusable label config fails every task the same way: no retry helps
        ledger.record_many(project, model_version, [error_result(str(t.get("id")), f"label_config: {exc}")
                                                     for t in tasks if isinstance(t, Mapping)])
        ledger.jobs.finish(job_key, status="failed", n_errors=len(tasks), error=f"label config: {exc}")
        return {"scored": 0, "errors": len(tasks), "deferred": 0, "imported": 0}
    own_version = cfg.model_version(spec)
    if own_version != model_version:
        reason = (f"job is for model version {model_version!r}, this worker scores with {own_version!r}: "
                  "start workers with the backend's LABEL_AUDIT_* settings")
        log.error("refused job %s: %s", job_key, reason)
        ledger.jobs.finish(job_key, status="refused", error=reason)
        raise RefusedJob(reason)
    fetcher = fetcher_from_settings(settings) if spec.image_fields else None
    try:  # an image project's images are fetched here, each refusal that task's error
        converted = tasks_to_items(tasks, spec, label_field=cfg.label_field, max_chars=cfg.max_item_chars,
                                   fetcher=fetcher)
    finally:
        if fetcher is not None:
            fetcher.close()
    ledger.record_crowd(project, converted.crowd)
    ledger.record_many(project, model_version, converted.errors)
    hashes = {str(it.id): input_hash(it.fields, it.images) for it in converted.items}
    todo_ids = set(ledger.pending(project, [it.id for it in converted.items], model_version, input_hashes=hashes))
    items = [it for it in converted.items if it.id in todo_ids]
    log.info("job %s attempt %d: %d tasks, %d to score", job_key, attempt, len(tasks), len(items))

    counts = {"scored": 0, "errors": len(converted.errors), "deferred": 0, "imported": 0}
    if items:
        cache = resources.call_cache(settings.store_url)
        members = resources.members(model_version, lambda: cfg.build(spec))
        try:  # confident-learning members learn from the whole project (one fit per project version)
            prepared, trained_on = prepare_for_project(
                members, connect=lambda: ls_client(settings), project=project, spec=spec,
                label_field=cfg.label_field, delimit=settings.engine_config().delimit)
        except ValueError as exc:
            ledger.jobs.finish(job_key, status="failed", n_errors=len(items), error=str(exc))
            raise
        engine = make_engine(spec, prepared.members, cache=cache, config=settings.engine_config(),
                        secrets=settings.secrets())
        share_fits(engine, trained_on, cache)
        buffer: list[ItemResult] = []
        for result in engine.score(items):
            if is_transient(result):
                counts["deferred"] += 1
                continue
            buffer.append(result)
            counts["scored" if result.error is None else "errors"] += 1
            if len(buffer) >= SAVE_EVERY:
                ledger.record_many(project, model_version, buffer)
                buffer = []
        ledger.record_many(project, model_version, buffer)

    _request_import(settings, project, model_version, label_config)
    if counts["deferred"]:
        ledger.jobs.finish(job_key, status="retrying", n_scored=counts["scored"], n_errors=counts["errors"],
                           error=f"{counts['deferred']} items deferred: LLM provider unavailable")
        raise TransientScoringError(f"{counts['deferred']} items hit a transient provider error; retrying later")
    ledger.jobs.finish(job_key, status="finished", n_scored=counts["scored"], n_errors=counts["errors"])
    return counts


def _request_import(settings: Settings, project: str, model_version: str, label_config: str) -> None:
    """Ask for this project's importer (the results are committed): predictions leave in a few big calls.

    ``counts["imported"]`` stays 0: the importer job, not this one, imports (and counts) them.
    """
    if not settings.label_studio_url or not settings.label_studio_token:
        log.warning("LABEL_STUDIO_URL/LABEL_STUDIO_API_KEY not set: predictions stay in the ledger")
        return
    job = get_current_job()
    if job is None:  # called outside a worker (a direct call): nobody could run the importer later
        log.warning("not running in an rq worker: predictions stay in the ledger until the next flush")
        return
    request_flush(scoring_queue(job.origin, job.connection), project=project, model_version=model_version,
                  label_config=label_config, min_wait=settings.import_wait)
