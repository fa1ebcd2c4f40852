"""Fixtures of the worker tests: tasks, a private queue, a ledger file, real rq worker processes."""

from __future__ import annotations

import uuid

import pytest
from redis import Redis
from rq import Queue
from sqlalchemy import func, select

from backend.ledger import Ledger
from backend.worker.config import EnsembleConfig
from tests.backend.worker.rq_process import RQWorkerProcess

CLAIMS = ["The cat sat on the mat.", "Paris is the capital of Germany.", "Water boils at 100 C at sea level."]


def make_tasks(n: int, *, start: int = 1) -> list[dict]:
    tasks = []
    for i in range(start, start + n):
        label = str(i % 2)
        tasks.append({
            "id": i,
            "data": {"grounding": f"Document {i}: the cat sat on the mat in Paris.",
                     "generated_text": CLAIMS[i % len(CLAIMS)]},
            "annotations": [{"id": 1000 + i, "completed_by": 1, "was_cancelled": False, "result": [
                {"from_name": "label", "to_name": "generated_text", "type": "choices",
                 "value": {"choices": [label]}}]}],
        })
    return tasks


def count_rows(ledger: Ledger, table) -> int:
    with ledger.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


@pytest.fixture()
def env(tmp_path, smollm2_path) -> dict[str, str]:
    return {"DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path)}


@pytest.fixture()
def queue(redis_url):
    q = Queue(f"test-{uuid.uuid4().hex[:10]}", connection=Redis.from_url(redis_url))
    yield q
    q.empty()


@pytest.fixture()
def workers(redis_url, queue, env):
    """Start real rq workers (default: the shared Redis and this test's queue); all stopped afterwards."""
    started: list[RQWorkerProcess] = []

    def start(*, url: str | None = None, queue_name: str | None = None,
              extra_env: dict[str, str] | None = None) -> RQWorkerProcess:
        proc = RQWorkerProcess(url or redis_url, queue_name or queue.name, {**env, **(extra_env or {})}).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


def local_config(*, prompts: list[str], batch_size: int) -> EnsembleConfig:
    member = {"provider": "local", "model": "smollm2", "base_url": None, "prompts": prompts, "options": {}}
    return EnsembleConfig(members=(member,), batch_size=batch_size)


