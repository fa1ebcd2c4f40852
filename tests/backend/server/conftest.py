"""Shared pieces of the backend tests: a label config, an ensemble config, a fresh queue."""

from __future__ import annotations

import uuid

import pytest
from redis import Redis
from rq import Queue

from backend.labelstudio.labelconfig import label_config_for_spec
from backend.ledger import Ledger
from backend.task.spec import load_spec
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.safety import scoring_queue

LABEL_CONFIG = label_config_for_spec(load_spec("factual-consistency"))

# An OpenAI-protocol member on a closed port: building it needs no server, and these tests never
# score (the backend must never call an LLM inside a request).
CLOSED_SERVER_MEMBER = {"provider": "openai", "model": "smol", "base_url": "http://127.0.0.1:9/v1",
                        "prompts": None, "options": {}}


@pytest.fixture()
def config() -> EnsembleConfig:
    return EnsembleConfig(members=(CLOSED_SERVER_MEMBER,), batch_size=2)


@pytest.fixture()
def ledger(tmp_path) -> Ledger:
    return Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")


@pytest.fixture()
def queue(redis_url) -> Queue:
    conn = Redis.from_url(redis_url)
    q = scoring_queue(f"test-{uuid.uuid4().hex[:10]}", conn)  # JSON jobs, as the backend enqueues them
    yield q
    q.empty()
    for job_id in q.scheduled_job_registry.get_job_ids() + q.failed_job_registry.get_job_ids():
        conn.delete(f"rq:job:{job_id}")
