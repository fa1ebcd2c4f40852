"""Fixtures of the worker tests: tasks, a private queue, a ledger file, real rq worker processes."""

from __future__ import annotations

import uuid

import pytest
import yaml
from redis import Redis
from sqlalchemy import func, select

from backend.ledger import Ledger
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.safety import scoring_queue
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
    with ledger.db_engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def members_env(folder, config: EnsembleConfig) -> dict[str, str]:
    """Worker environment naming ``config``'s members: workers score with their own settings only."""
    path = folder / f"members-{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(yaml.safe_dump([m.to_dict() for m in config.members]))
    return {"LABEL_AUDIT_MEMBERS_FILE": str(path)}


@pytest.fixture()
def env(tmp_path, smollm2_path) -> dict[str, str]:
    """The workers' settings: the ledger, and the ensemble of :func:`local_config` (the tests' default)."""
    return {"DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
            **members_env(tmp_path, local_config(prompts=["fc-premise-hypothesis"], batch_size=1))}


@pytest.fixture()
def queue(redis_url):
    q = scoring_queue(f"test-{uuid.uuid4().hex[:10]}", Redis.from_url(redis_url))
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


