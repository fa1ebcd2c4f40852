"""Put scoring work on the RQ queue: batches keyed by (project, task ids, model_version).

The key makes enqueueing idempotent: the same batch enqueued twice (a webhook and a /predict for the
same new tasks, or a re-run ``audit``) maps to one RQ job id, and a job still queued or running is
not enqueued again. "Is it active?" and "enqueue" are one Redis transaction (``WATCH`` on the job's
hash, then ``MULTI``/``EXEC``): N concurrent callers put exactly one entry on the queue, where a
check followed by a separate enqueue let eight simultaneous /predict calls queue up to 7 copies of
one batch (and two workers then paid for each item twice). Retries use rq's ``Retry`` with backoff; a job abandoned by a killed worker is
retried the same way (see :mod:`backend.worker.recovery`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any, Callable, Mapping, Sequence

from redis import Redis
from redis.exceptions import WatchError
from rq import Queue, Retry
from rq.job import JobStatus

from backend.common import defaults
from backend.images.items import fetcher_from_settings
from backend.labelstudio.tasks import error_result, tasks_to_items
from backend.labelstudio.taskshape import job_task
from backend.ledger import Ledger
from backend.scoring.results import input_hash
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.safety import JOB_FUNC, SERIALIZER, scoring_queue

RETRY_INTERVALS = (5, 20, 60)
JOB_TIMEOUT = defaults.JOB_TIMEOUT
log = logging.getLogger(__name__)
ACTIVE = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED}
_ACTIVE_VALUES = frozenset(status.value for status in ACTIVE)


def redis_connection(url: str) -> Redis:
    """A Redis connection to ``url`` (the settings' ``redis_url``, resolved at the edge)."""
    return Redis.from_url(url)


def job_key(project: str, task_ids: Sequence[str], model_version: str,
            hashes: Sequence[str | None] = (), *, queue_name: str = "") -> str:
    """Stable id of a batch: the same queue, tasks, inputs and version always give the same key.

    rq job ids are global to a Redis database, not per queue: without the queue's name, two
    deployments sharing one Redis (each with its own ``LABEL_AUDIT_QUEUE``) and a project of the same
    id would take each other's batch for "already queued", and one of them would never be scored.
    """
    pairs = sorted(zip((str(t) for t in task_ids), list(hashes) or [None] * len(task_ids)), key=lambda p: p[0])
    blob = json.dumps([str(project), [t for t, _ in pairs], model_version]
                      + ([[h for _, h in pairs]] if hashes else []) + ([queue_name] if queue_name else []))
    return f"la-{project}-{hashlib.sha256(blob.encode()).hexdigest()[:20]}"


def enqueue_scoring(
    queue: Queue,
    ledger: Ledger,
    project: str,
    tasks: Sequence[Mapping[str, Any]],
    *,
    label_config: str,
    config: EnsembleConfig,
    model_version: str,
    settings: Settings | None = None,
) -> list[str]:
    """Enqueue the tasks without a ledger result, in batches; returns the job ids (new or active).

    Tasks are the dicts Label Studio sends (``id``, ``data``, ``annotations``); they travel in the job
    (JSON) so the worker needs no extra read from Label Studio. The ensemble does not travel: ``config``
    only sizes the batches, and each worker scores with its own settings. ``settings`` (default the config's)
    say where an image project's images are fetched from to hash them.
    """
    by_id: dict[str, Mapping[str, Any]] = {}
    nameless = []
    for index, task in enumerate(tasks):
        if isinstance(task, Mapping) and task.get("id") is not None and not isinstance(task.get("id"), bool):
            by_id[str(task["id"])] = task
        else:  # nothing to key it by, nor to attach a prediction to: record the error once, here
            nameless.append(error_result(f"task-without-id#{index}", "missing_id: the task has no id"))
    if nameless:
        log.warning("project %s: %d tasks without an id were not queued", project, len(nameless))
        ledger.record_many(project, model_version, nameless)
    hashes = input_hashes(list(by_id.values()), config, label_config, settings=settings,
                          scored=lambda ids: set(ledger.results_for(project, ids, model_version)))
    todo = ledger.pending(project, list(by_id), model_version, input_hashes=hashes)
    queue = scoring_queue(queue.name, queue.connection)
    job_ids = []
    for start in range(0, len(todo), config.batch_size):
        batch_ids = todo[start:start + config.batch_size]
        key = job_key(project, batch_ids, model_version, [hashes.get(t) for t in batch_ids], queue_name=queue.name)
        job_ids.append(key)
        batch = [job_task(by_id[t]) for t in batch_ids]
        _enqueue_once(queue, ledger, key, {"project": str(project), "tasks": batch, "label_config": label_config,
                                           "model_version": model_version, "job_key": key})
    return job_ids


def input_hashes(tasks: Sequence[Mapping[str, Any]], config: EnsembleConfig, label_config: str, *,
                 scored: Callable[[list[str]], set[str]] | None = None,
                 settings: Settings | None = None) -> dict[str, str]:
    """Task id -> hash of the input fields its prompts use (tasks that cannot be read get none).

    An image project's hash holds its images' content, so they are fetched (:mod:`backend.images`); with
    ``scored`` (task ids -> those with a stored result) only those are, the others being unscored anyway.
    A task whose image is refused gets the hash its error result is stored with (the references'). The
    images come from ``settings``' Label Studio (default: the config's settings).
    """
    try:
        spec = config.spec(label_config)
    except ValueError:
        return {}
    fetcher = None
    if spec.image_fields:
        if scored is not None:
            keep = scored([str(t.get("id")) for t in tasks])
            tasks = [t for t in tasks if str(t.get("id")) in keep]
        if not tasks:
            return {}
        fetcher = fetcher_from_settings(settings if settings is not None else config.settings)
    try:
        converted = tasks_to_items(tasks, spec, label_field=config.label_field, max_chars=config.max_item_chars,
                                   fetcher=fetcher)
    finally:
        if fetcher is not None:
            fetcher.close()
    hashes = {str(item.id): input_hash(item.fields, item.images) for item in converted.items}
    hashes.update({str(r.id): r.input_hash for r in converted.errors if r.input_hash is not None})
    return hashes


def _enqueue_once(queue: Queue, ledger: Ledger, key: str, kwargs: dict[str, Any]) -> bool:
    """Enqueue job ``key`` unless an active copy exists, atomically; True when this call queued it.

    The job's hash is watched while its status is read; the enqueue (hash + queue entry) then runs in
    ``MULTI``/``EXEC`` and fails with ``WatchError`` if any other client touched the job in between, in
    which case the status is read again (it is then active, and this call queues nothing). rq's own
    ``unique=True`` refuses any existing hash, also a finished or failed job's, which must be re-queued.
    """
    job_hash = queue.job_class.key_for(key)
    with queue.connection.pipeline() as pipe:
        while True:
            try:
                pipe.watch(job_hash)
                status = pipe.hget(job_hash, "status")
                if status is not None and status.decode() in _ACTIVE_VALUES:
                    pipe.unwatch()
                    return False
                _note_queued(ledger, key, kwargs)
                pipe.multi()
                queue.enqueue(
                    JOB_FUNC, kwargs=kwargs, job_id=key, pipeline=pipe,
                    retry=Retry(max=len(RETRY_INTERVALS), interval=list(RETRY_INTERVALS)),
                    job_timeout=JOB_TIMEOUT, result_ttl=3600, failure_ttl=7 * 24 * 3600,
                    description=f"label-audit score project {kwargs['project']}: {len(kwargs['tasks'])} tasks",
                )
                pipe.execute()
                return True
            except WatchError:
                continue


def _note_queued(ledger: Ledger, key: str, kwargs: Mapping[str, Any]) -> None:
    """Record the job as queued; bookkeeping only, so a read-only or failing ledger does not stop the enqueue."""
    try:
        ledger.jobs.queued(key, project=kwargs["project"], model_version=kwargs["model_version"],
                           n_tasks=len(kwargs["tasks"]))
    except Exception as exc:  # the worker records "started" itself
        log.warning("job %s: could not record 'queued' in the ledger (%s)", key, type(exc).__name__)
