"""The RQ job: score a batch of Label Studio tasks, record them in the ledger, import predictions.

Safe to run twice: tasks already in the ledger for this ``model_version`` are skipped, every write
is an upsert, and predictions are imported only for results not yet marked imported. A worker
killed mid-job therefore loses at most the batch's unsaved tail; the retried job (rq ``Retry``,
also applied to abandoned jobs) scores only what is missing and stores no duplicate.

Transient provider failures (server down, timeouts, rate limits) are not verdicts: items with such a
member error are left unrecorded and the job raises :class:`TransientScoringError`, so rq retries it
with backoff once the LLM server is back.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from backend.cache import CallCache
from backend.task.scoring import make_engine
from backend.labelstudio.tasks import error_result, tasks_to_items
from backend.ledger import Ledger
from backend.results import ItemResult, input_hash
from backend.settings import Settings
from backend.worker.config import EnsembleConfig
from backend.worker.safety import RefusedJob
from backend.labelstudio.predictions import import_predictions, ls_client, prediction_requests

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
) -> dict[str, int]:
    """Score ``tasks`` of ``project`` with this worker's own ensemble and bulk-import their predictions.

    The job carries data only; the ensemble (members, endpoints, key names) comes from the worker's
    settings. A job whose ``model_version`` is not this worker's is refused (logged, recorded in the job
    log, raised as :class:`backend.worker.safety.RefusedJob`): it was queued for another ensemble.
    """
    settings = Settings.from_env()
    ledger = Ledger(settings.database_url)
    cfg = EnsembleConfig.from_settings(settings)
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
    converted = tasks_to_items(tasks, spec, label_field=cfg.label_field)
    ledger.record_crowd(project, converted.crowd)
    ledger.record_many(project, model_version, converted.errors)
    hashes = {str(it.id): input_hash(it.fields) for it in converted.items}
    todo_ids = set(ledger.pending(project, [it.id for it in converted.items], model_version, input_hashes=hashes))
    items = [it for it in converted.items if it.id in todo_ids]
    log.info("job %s attempt %d: %d tasks, %d to score", job_key, attempt, len(tasks), len(items))

    counts = {"scored": 0, "errors": len(converted.errors), "deferred": 0, "imported": 0}
    if items:
        engine = make_engine(spec, cfg.build(spec), cache=CallCache(settings.database_url),
                        config=settings.engine_config(),
                        secrets=settings.secrets())
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

    counts["imported"] = _import(settings, ledger, project, spec, model_version, [str(t.get("id")) for t in tasks
                                                                         if isinstance(t, Mapping)])
    if counts["deferred"]:
        ledger.jobs.finish(job_key, status="retrying", n_scored=counts["scored"], n_errors=counts["errors"],
                           error=f"{counts['deferred']} items deferred: LLM provider unavailable")
        raise TransientScoringError(f"{counts['deferred']} items hit a transient provider error; retrying later")
    ledger.jobs.finish(job_key, status="finished", n_scored=counts["scored"], n_errors=counts["errors"])
    return counts


def _import(settings: Settings, ledger: Ledger, project: str, spec, model_version: str, task_ids: list[str]) -> int:
    """Import this batch's not-yet-imported predictions in one bulk call, then mark them."""
    wanted = set(task_ids)
    results = [r for r in ledger.unimported(project, model_version) if str(r.id) in wanted]
    if not results:
        return 0
    client = ls_client(settings)
    if client is None:
        log.warning("LABEL_STUDIO_URL/LABEL_STUDIO_API_KEY not set: predictions stay in the ledger")
        return 0
    requests = prediction_requests(results, spec, model_version)
    import_predictions(client, project, requests)
    ledger.mark_imported(project, model_version, [str(r.id) for r in results])
    return len(requests)
