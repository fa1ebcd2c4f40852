"""Workers trust nothing from the queue: real Redis, real ``label-audit worker --burst``.

An attacker who can write to Redis enqueues jobs in the serializer the workers accept; the workers must
run no function but the scoring job, and score only with their own ensemble (never a job's endpoints or
key names)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue

from backend.labelstudio.labelconfig import label_config_for_spec
from backend.task.spec import load_spec
from tests.backend.security.listener import Listener
from tests.backend.server.backend_process import REPO

pytestmark = [pytest.mark.redis]

LABEL_CONFIG = label_config_for_spec(load_spec("factual-consistency"))
LS_TOKEN = "ls-token-0123456789abcdef0123456789abcdef"
CLI = Path(sys.executable).with_name("label-audit")


def _accepted_serializer():
    """The serializer the deployed workers read (what an attacker would use)."""
    try:
        from backend.worker.safety import SERIALIZER
    except ImportError:  # before the fix: rq's default (pickle)
        from rq.serializers import DefaultSerializer as SERIALIZER
    return SERIALIZER


@pytest.fixture()
def setup(tmp_path, redis_url):
    name = f"trust-{uuid.uuid4().hex[:10]}"
    conn = Redis.from_url(redis_url)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",)}
    env.update({"REDIS_URL": redis_url, "LABEL_AUDIT_QUEUE": name, "PYTHONPATH": str(REPO),
                "DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
                "LABEL_AUDIT_MEMBERS": "openai:smol@http://127.0.0.1:9/v1", "LABEL_STUDIO_API_KEY": LS_TOKEN})
    yield env, Queue(name, connection=conn, serializer=_accepted_serializer())
    Queue(name, connection=conn).delete(delete_jobs=True)


def _run_worker(env: dict[str, str]) -> str:
    done = subprocess.run([str(CLI), "worker", "--burst"], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=180)
    return done.stdout + done.stderr


def test_a_foreign_function_is_never_run(setup, tmp_path) -> None:
    env, queue = setup
    marker = tmp_path / "pwned"
    job = queue.enqueue("os.system", f"id > {marker}")
    log = _run_worker(env)
    assert not marker.exists(), log
    assert job.get_status(refresh=True) == "failed"
    assert "refused" in log


def test_a_pickled_job_is_never_loaded(setup, tmp_path) -> None:
    env, queue = setup
    marker = tmp_path / "pickled"
    pickled = Queue(queue.name, connection=queue.connection)  # rq's default serializer: pickle
    pickled.enqueue(os.system, f"id > {marker}")
    log = _run_worker(env)
    assert not marker.exists(), log


def test_a_job_cannot_choose_endpoints_or_keys(setup, tmp_path) -> None:
    """Before: the job's own ensemble config sent the Label Studio token to a base_url it named."""
    env, queue = setup
    with Listener(status=500) as listener:
        config = {"spec_name": "factual-consistency", "batch_size": 16, "members": [
            {"provider": "openai", "model": "evil", "base_url": f"{listener.url}/v1", "prompts": None,
             "options": {"api_key_env": "LABEL_STUDIO_API_KEY"}}]}
        job = queue.enqueue("backend.worker.jobs.score_tasks", kwargs={
            "project": "7", "label_config": LABEL_CONFIG, "config": config, "model_version": "label-audit-x",
            "job_key": "la-7-evil", "tasks": [{"id": 1, "data": {"grounding": "d", "generated_text": "c"},
                                               "annotations": []}]})
        log = _run_worker(env)
        leaked = [r for r in listener.requests if LS_TOKEN in str(r["headers"])]
    assert not listener.requests and not leaked, log
    assert job.get_status(refresh=True) == "failed"
    assert "refused" in log


def test_a_job_for_another_model_version_is_refused(setup, tmp_path) -> None:
    env, queue = setup
    with Listener(status=500) as listener:
        env = {**env, "LABEL_AUDIT_MEMBERS": f"openai:mine@{listener.url}/v1"}
        job = queue.enqueue("backend.worker.jobs.score_tasks", kwargs={
            "project": "7", "label_config": LABEL_CONFIG, "model_version": "label-audit-000000000000",
            "job_key": "la-7-other", "tasks": [{"id": 1, "data": {"grounding": "d", "generated_text": "c"},
                                                "annotations": []}]})
        log = _run_worker(env)
    assert not listener.requests, log
    assert job.get_status(refresh=True) == "failed"
    assert "refused job la-7-other" in log and "model version" in log
