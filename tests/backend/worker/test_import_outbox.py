"""Predictions leave through the ledger's outbox: few import calls, none lost when a worker dies.

Real Label Studio (behind a counting proxy, to count its import calls), real Redis, real ``rq worker``
processes, and judges served by ``tests/support/latency_judge.py`` (an OpenAI-compatible server with
valid logprobs and no latency: not a model, the verdicts are not what is tested).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter

import pytest
from redis import Redis

from backend.labelstudio.client import connect, iter_tasks
from backend.labelstudio.taskshape import job_task
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from backend.labelstudio.predictions import import_predictions, prediction_requests
from backend.worker.importer import OutboxKeys, flush_now
from backend.worker.queueing import enqueue_scoring
from backend.worker.safety import scoring_queue
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.rq_process import RQWorkerProcess, wait_until
from tests.support.counting_proxy import CountingProxy
from tests.support.latency_judge import JudgeServer

pytestmark = [pytest.mark.redis]

IMPORT_ROUTE = "POST /api/projects/{id}/import/predictions"


def _serve(server):
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server


@pytest.fixture()
def judge():
    server = _serve(JudgeServer(("127.0.0.1", 0), latency=0.0))
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture()
def proxy(label_studio):
    server = _serve(CountingProxy(("127.0.0.1", 0), label_studio.url))
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    server.shutdown()


def _tasks(n: int) -> list[dict]:
    return [{"data": {"grounding": f"Document {i} says {i % 2} [truth:{i % 2}].", "generated_text": f"Claim {i}."},
             "annotations": [{"result": [{"from_name": "label", "to_name": "generated_text", "type": "choices",
                                          "value": {"choices": [str(i % 2)]}}]}]} for i in range(n)]


def _setup(tmp_path, redis_url, judge, proxy, label_studio, *, n_tasks: int, batch: int, wait: float):
    project, task_ids = label_studio.create_project(LABEL_CONFIG, _tasks(n_tasks))
    queue = scoring_queue(f"test-outbox-{uuid.uuid4().hex[:8]}", Redis.from_url(redis_url))
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
           "LABEL_AUDIT_MEMBERS": f"openai:bench-judge@{judge}/v1", "LABEL_AUDIT_BATCH": str(batch),
           "LABEL_AUDIT_IMPORT_WAIT": str(wait), "LABEL_STUDIO_URL": proxy.url,
           "LABEL_STUDIO_API_KEY": label_studio.token}
    config = EnsembleConfig(Settings.from_env(env))
    version = config.model_version(config.spec(LABEL_CONFIG))
    ledger = Ledger(env["DATABASE_URL"])
    tasks = [job_task(t) for t in iter_tasks(label_studio.client, project, with_annotations=True)]
    jobs = enqueue_scoring(queue, ledger, str(project), tasks, label_config=LABEL_CONFIG, config=config,
                           model_version=version)
    return project, [str(t) for t in task_ids], queue, env, ledger, version, jobs


def _predictions_per_task(client, project: int) -> Counter:
    return Counter({int(t.id): len(t.predictions or []) for t in iter_tasks(client, project, with_annotations=True)})


def test_many_jobs_share_few_import_calls(tmp_path, redis_url, judge, proxy, label_studio):
    """Before: one import call per job (12 here), each recounting the whole project in Label Studio."""
    project, ids, queue, env, ledger, version, jobs = _setup(tmp_path, redis_url, judge, proxy, label_studio,
                                                             n_tasks=24, batch=2, wait=20)
    assert len(jobs) == 12
    worker = RQWorkerProcess(redis_url, queue.name, env).start()
    try:
        wait_until(lambda: not ledger.pending(str(project), ids, version), timeout=240, what="24 tasks scored")
        wait_until(lambda: not ledger.unimported(str(project), version), timeout=120, what="the outbox flushed")
    finally:
        worker.stop()
    assert proxy.counts[IMPORT_ROUTE] <= 2, (proxy.counts, worker.log_tail())
    assert _predictions_per_task(label_studio.client, project) == Counter({int(t): 1 for t in ids})
    assert "Traceback" not in worker.log_tail()


def test_no_prediction_lost_when_the_worker_dies_before_the_flush(tmp_path, redis_url, judge, proxy, label_studio):
    project, ids, queue, env, ledger, version, _ = _setup(tmp_path, redis_url, judge, proxy, label_studio,
                                                          n_tasks=12, batch=2, wait=30)
    first = RQWorkerProcess(redis_url, queue.name, env).start()
    try:
        wait_until(lambda: not ledger.pending(str(project), ids, version), timeout=240, what="12 tasks scored")
        assert ledger.unimported(str(project), version), "flushed before the kill: the test would prove nothing"
    finally:
        first.kill()  # SIGKILL, scheduler child included: the importer job waits in Redis, the rows in the ledger
    assert proxy.counts[IMPORT_ROUTE] == 0
    second = RQWorkerProcess(redis_url, queue.name, env).start()
    try:
        wait_until(lambda: not ledger.unimported(str(project), version), timeout=180,
                   what="the outbox flushed by the next worker")
    finally:
        second.stop()
    assert _predictions_per_task(label_studio.client, project) == Counter({int(t): 1 for t in ids})


def test_a_flush_pages_the_outbox_in_calls_that_do_not_grow_with_it(tmp_path, redis_url, proxy, label_studio):
    project, task_ids = label_studio.create_project(LABEL_CONFIG, _tasks(60))
    ledger = Ledger(f"sqlite:///{tmp_path / 'audit.sqlite'}")
    config = EnsembleConfig(members=({"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                                      "prompts": None, "options": {}},))
    spec = config.spec(LABEL_CONFIG)
    ledger.record_many(str(project), "v1", [
        ItemResult(id=str(t), original="0", prediction="1", confidence=0.9, probs={"0": 0.1, "1": 0.9},
                   flagged=True) for t in task_ids])
    client = connect(proxy.url, label_studio.token)
    conn = Redis.from_url(redis_url)
    queue_name = f"test-flush-{uuid.uuid4().hex[:8]}"
    assert flush_now(conn, queue_name, client, ledger, project=str(project), model_version="v1", spec=spec,
                     page=25) == (60, 3)
    assert flush_now(conn, queue_name, client, ledger, project=str(project), model_version="v1",
                     spec=spec) == (0, 0)  # an empty outbox costs no import call
    assert proxy.counts[IMPORT_ROUTE] == 3
    assert _predictions_per_task(label_studio.client, project) == Counter({int(t): 1 for t in task_ids})


def test_a_page_stored_by_a_call_that_timed_out_is_not_sent_twice(tmp_path, redis_url, proxy, label_studio):
    """Before: a 60 s client timeout on a 10k-task project's import, which Label Studio completed,
    duplicated 3,552 predictions when the importer's retry sent the page again."""
    project, task_ids = label_studio.create_project(LABEL_CONFIG, _tasks(8))
    ledger = Ledger(f"sqlite:///{tmp_path / 'audit.sqlite'}")
    config = EnsembleConfig(members=({"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                                      "prompts": None, "options": {}},))
    spec = config.spec(LABEL_CONFIG)
    results = [ItemResult(id=str(t), original="0", prediction="1", confidence=0.9, probs={"0": 0.1, "1": 0.9},
                          flagged=True) for t in task_ids]
    ledger.record_many(str(project), "v1", results)
    client = connect(proxy.url, label_studio.token)
    conn = Redis.from_url(redis_url)
    queue_name = f"test-flush-{uuid.uuid4().hex[:8]}"
    keys = OutboxKeys.of(queue_name, str(project), "v1")
    # what an importer leaves when its call timed out after Label Studio stored the first 5
    conn.set(keys.in_flight, json.dumps([str(t) for t in task_ids[:5]]), ex=600)
    import_predictions(client, str(project), prediction_requests(results[:5], spec, "v1"))
    assert flush_now(conn, queue_name, client, ledger, project=str(project), model_version="v1",
                     spec=spec) == (3, 1)
    assert conn.get(keys.in_flight) is None
    assert _predictions_per_task(label_studio.client, project) == Counter({int(t): 1 for t in task_ids})
