"""``label-audit audit``: score a whole existing Label Studio project through the RQ queue.

The same path as the backend's /predict and webhooks (same jobs, same ledger, same bulk prediction
import), so a project audited from the command line and one scored from the Label Studio UI end in
the same state. The summary is rebuilt from the ledger (not from one process's counters) because
the scoring happened in the workers.
"""

from __future__ import annotations

import copy
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from backend.costs.accounting import answered_calls
from backend.families.choices_presentation import BareCodes, bare_codes
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.projectspec import attach_guidelines
from backend.labelstudio.taskshape import job_task
from backend.ledger import Ledger
from backend.scoring.results import ItemResult, base_member_id
from backend.scoring.run_stats import EngineStats, tally
from backend.summaries.score_summary import SuspectList, build_summary
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.importer import drain, flush_now
from backend.worker.queueing import enqueue_scoring
from backend.worker.safety import SERIALIZER

if TYPE_CHECKING:
    from backend.worker.audit_pass import AuditPass


ENQUEUE_BATCHES = 64  # jobs enqueued per listed chunk of tasks


@dataclass(frozen=True)
class AuditRun:
    """What one ``audit`` enqueued."""

    project: str
    model_version: str
    task_ids: list[str]
    jobs: list[str]
    label_config: str


def start_audit(client: Any, project: int, *, queue: Queue, ledger: Ledger, config: EnsembleConfig,
                on_presentation: Callable[[tuple[BareCodes, ...]], None] | None = None) -> AuditRun:
    """Read the project's config, guidelines and tasks (paged), then enqueue the tasks not yet in the ledger.

    Tasks are enqueued as they are listed, ``ENQUEUE_BATCHES`` jobs at a time (memory does not grow with
    the project; workers start on the first jobs while the rest is still being listed). ``on_presentation``
    gets the spec's pre-flight warnings (:func:`backend.families.choices_presentation.bare_codes`) before the
    first job is enqueued, so the command says them before any judge is called.
    """
    info = client.projects.get(id=project)
    label_config = attach_guidelines(info.label_config, getattr(info, "expert_instruction", None))
    spec = config.spec(label_config)
    if on_presentation is not None:
        on_presentation(bare_codes(spec))
    version = config.model_version(spec)
    ledger.set_project(str(project), label_config=label_config, label_field=config.label_field,
                       control=config.control)
    task_ids: list[str] = []
    jobs: list[str] = []
    chunk: list[dict] = []
    for task in iter_tasks(client, project, with_annotations=True):
        chunk.append(job_task(task))
        if len(chunk) >= ENQUEUE_BATCHES * config.batch_size:
            _enqueue(queue, ledger, project, chunk, task_ids, jobs, label_config, config, version)
            chunk = []
    _enqueue(queue, ledger, project, chunk, task_ids, jobs, label_config, config, version)
    return AuditRun(str(project), version, task_ids, jobs, label_config)


def _enqueue(queue: Queue, ledger: Ledger, project: int, chunk: list[dict], task_ids: list[str], jobs: list[str],
             label_config: str, config: EnsembleConfig, version: str) -> None:
    """Enqueue one listed chunk: the audit holds a chunk of task data at a time, not the project's."""
    if not chunk:
        return
    task_ids.extend(str(t["id"]) for t in chunk)
    jobs.extend(enqueue_scoring(queue, ledger, str(project), chunk, label_config=label_config, config=config,
                                model_version=version))


def wait_for(ledger: Ledger, queue: Queue, run: AuditRun, *, timeout: float, poll: float = 1.0,
             on_progress: Callable[[int, int], None] | None = None) -> bool:
    """Poll until every job is over (rq's view: finished, or failed with no retry left) or ``timeout``.

    Returns True when every task then has a result. Waiting for the jobs, not only for the results,
    lets them hand their results to the importer before :func:`import_missing` flushes the rest.
    Each poll costs one count and, amortised, one job lookup (the jobs are checked oldest first and
    only until the first one still running): polling a 100k-task audit must not read the project.
    """
    deadline = time.monotonic() + timeout
    total = len(run.task_ids)
    open_jobs = deque(run.jobs)
    while True:
        if on_progress is not None:
            on_progress(min(ledger.count_done(run.project, run.model_version), total), total)
        while open_jobs and _over(queue, open_jobs[0]):
            open_jobs.popleft()
        if not open_jobs:
            return not ledger.without_result(run.project, run.task_ids, run.model_version)
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


def _over(queue: Queue, job_id: str) -> bool:
    try:
        job = Job.fetch(job_id, connection=queue.connection, serializer=SERIALIZER)
    except NoSuchJobError:
        return True
    return job.get_status(refresh=True) in (JobStatus.FINISHED, JobStatus.FAILED, JobStatus.CANCELED,
                                            JobStatus.STOPPED)


def import_missing(client: Any, ledger: Ledger, run: AuditRun, config: EnsembleConfig, *,
                   queue: Queue | None = None) -> int:
    """Flush the predictions outbox now (what the workers' importer has not sent yet, or all of it when
    the workers run without Label Studio credentials); returns how many were sent.

    With ``queue``, under the importer's lock, so it never sends a page an importer job is sending.
    """
    spec = config.spec(run.label_config)
    name = config.ls_version(spec)
    if queue is None:
        return drain(client, ledger, project=run.project, model_version=run.model_version, spec=spec,
                     ls_version=name)[0]
    return flush_now(queue.connection, queue.name, client, ledger, project=run.project,
                     model_version=run.model_version, spec=spec, ls_version=name)[0]


def summary_from_ledger(ledger: Ledger, run: AuditRun, config: EnsembleConfig, *, prices: Any = None,
                        quorum: Any = None, passed: "AuditPass | None" = None) -> dict[str, Any]:
    """The ``label-audit score`` summary, computed from the ledger's results for this run.

    The verdicts counted are the project pass's (:mod:`backend.worker.audit_pass`: the health gate, then the
    settings' prior correction, as ``score`` re-reads its run), folded as they come (without a correction, read
    page by page: memory stays flat as the project grows). Member health is read from the judges' own answers.
    ``quorum`` is the workers' (:meth:`backend.config.settings.Settings.quorum`), reported as `score` reports its own.
    ``passed``: the :class:`backend.worker.audit_pass.AuditPass` already decided over these results, else decided here.
    """
    from backend.costs.accounting import Accountant
    from backend.scoring.ensemble import describe_flag_rule, resolve_threshold
    from backend.summaries.score_summary import task_title
    from backend.worker.audit_pass import audit_pass

    stats, suspects, accountant, members = EngineStats(), SuspectList(), Accountant(prices), set()
    spec = config.spec(run.label_config)
    # first pass: the gate (and correction) is decided over the project's results, not batch by batch
    if passed is None:
        passed = audit_pass(ledger, run, config, quorum=quorum)
    for res in passed.verdicts():
        stats.add_result(res)
        stats.llm_calls += _calls(res)
        suspects.add(res)
        accountant.add(res)
        members.update(base_member_id(m.member_id) for m in res.members)
    member_ids = sorted(members) or [f"{m.provider}:{m.model}" for m in config.members]
    rule = describe_flag_rule(spec, delta=config.delta)
    summary = build_summary(stats, task=spec.name, members=member_ids, model_version=run.model_version,
                            threshold=resolve_threshold(spec, config.threshold), delta=config.delta,
                            suspects=suspects, flag_rule=rule, quorum=quorum, accounting=accountant.to_dict(),
                            title=task_title(spec, source=f"project {run.project}"),
                            health=passed.health.to_dict(),
                            excluded=sorted({p for m in config.members for p in m.exclude}),
                            presentation=bare_codes(spec))
    # health_gate and prior_correction, as score's summary has them (the write-back adds its count to a copy)
    summary.update(copy.deepcopy(passed.blocks))
    return {**summary, **audited_controls(run.label_config, spec, control=config.control)}


def audited_controls(label_config: str, spec: Any, *, control: str | None) -> dict[str, Any]:
    """What the audit judged of the project: each audited control and its family, and each skipped control with
    its reason (a project's other controls are listed, never silently dropped)."""
    from backend.labelstudio.projectspec import skipped_controls

    controls = [{"name": c.name, "tag": c.tag, "family": c.spec.family} for c in spec.controls] or (
        [{"name": spec.binding.from_name, "family": spec.family}] if spec.binding is not None else [])
    try:
        skipped = skipped_controls(label_config, control=control)
    except ValueError:
        skipped = []
    return {"controls": controls,
            "skipped_controls": [{"name": s.name, "tag": s.tag, "reason": s.reason} for s in skipped]}


def _calls(result: ItemResult) -> int:
    """The ledger does not know the calls themselves: a member answer that was not cached counts as one
    (each option order's answer, not their average: :func:`backend.costs.accounting.answered_calls`)."""
    return sum(1 for m in answered_calls(result) if not m.cached and m.error is None)


def stats_from_results(results: list[ItemResult]) -> EngineStats:
    """Engine-style counters rebuilt from stored results with the engine's own tally (:func:`tally`).

    The ledger does not know the calls themselves: a member answer that was not cached counts as one call.
    """
    stats = tally(results)
    stats.llm_calls = sum(_calls(res) for res in results)
    return stats
