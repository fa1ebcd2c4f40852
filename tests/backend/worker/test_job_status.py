"""The ledger's job status follows what rq did (real Redis, real `rq worker` processes)."""

from __future__ import annotations

import pytest
from rq.job import Job, JobStatus

from backend.ledger import Ledger
from backend.worker.queueing import enqueue_scoring
from backend.worker.safety import JOB_FUNC, SERIALIZER
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import local_config, make_tasks
from tests.backend.worker.rq_process import wait_until

pytestmark = [pytest.mark.redis]


def _rq_status(queue, key: str):
    return Job.fetch(key, connection=queue.connection, serializer=SERIALIZER).get_status(refresh=True)


def test_a_job_for_another_model_version_is_refused_once(queue, env, workers) -> None:
    ledger = Ledger(env["DATABASE_URL"])
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=5)
    (key,) = enqueue_scoring(queue, ledger, "1", make_tasks(2), label_config=LABEL_CONFIG, config=config,
                             model_version="label-audit-another-ensemble")
    worker = workers()
    wait_until(lambda: _rq_status(queue, key) == JobStatus.FAILED, timeout=90, what="the refusal")
    record = ledger.jobs.get(key)
    # before: finish(status="refused") raised ValueError ("not an allowed status"): the row said "started"
    assert record.status == "refused" and "another-ensemble" in record.error, worker.log_tail()
    assert record.attempts == 1  # not retried: no retry changes the worker's model version


def test_a_job_rq_fails_is_failed_in_the_ledger(queue, env, workers) -> None:
    ledger = Ledger(env["DATABASE_URL"])
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=5)
    version = config.model_version(config.spec(LABEL_CONFIG))
    key = "la-test-crash"
    ledger.jobs.queued(key, project="1", model_version=version, n_tasks=1)  # as enqueue_scoring records it
    # a job that raises (tasks is not a list) with no retry left: rq fails it for good, in any worker model
    queue.enqueue(JOB_FUNC, kwargs={"project": "1", "tasks": 5, "label_config": LABEL_CONFIG,
                                    "model_version": version, "job_key": key}, job_id=key)
    worker = workers()
    wait_until(lambda: _rq_status(queue, key) == JobStatus.FAILED, timeout=120, what="rq failing the job")
    wait_until(lambda: ledger.jobs.get(key).status not in ("queued", "started"), timeout=10, what="the ledger row")
    record = ledger.jobs.get(key)
    assert record.status == "failed", (record, worker.log_tail())  # before: "started" forever
    assert "failed by the queue" in record.error
