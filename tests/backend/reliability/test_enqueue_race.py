"""N concurrent enqueues of the same new tasks put exactly one queue entry per batch (real Redis)."""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest
from redis import Redis

from backend.ledger import Ledger
from backend.worker.queueing import enqueue_scoring
from backend.worker.safety import scoring_queue
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import local_config, make_tasks

pytestmark = pytest.mark.redis

CLIENTS = 8


def _race(redis_url: str, queue_name: str, ledger_url: str, tasks: list[dict], rounds: int) -> list[list[str]]:
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=5)
    version = config.model_version(config.spec(LABEL_CONFIG))
    Ledger(ledger_url)  # the schema exists before the clients start, as after `label-audit serve` starts
    barrier = threading.Barrier(CLIENTS, timeout=30)
    answers: list[list[str]] = []
    lock = threading.Lock()

    def client() -> None:
        queue = scoring_queue(queue_name, Redis.from_url(redis_url))  # one connection per client, like gunicorn
        ledger = Ledger(ledger_url)
        for _ in range(rounds):
            barrier.wait()
            ids = enqueue_scoring(queue, ledger, "1", tasks, label_config=LABEL_CONFIG, config=config,
                                  model_version=version)
            with lock:
                answers.append(ids)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_concurrent_enqueues_of_the_same_tasks_queue_each_batch_once(redis_url, tmp_path) -> None:
    queue = scoring_queue(f"test-race-{uuid.uuid4().hex[:10]}", Redis.from_url(redis_url))
    try:
        answers = _race(redis_url, queue.name, f"sqlite:///{tmp_path / 'ledger.sqlite'}", make_tasks(40), rounds=5)
        assert len(answers) == CLIENTS * 5
        keys = set(answers[0])
        assert len(keys) == 8 and all(set(a) == keys for a in answers)  # every caller names the same 8 jobs
        entries = Counter(queue.job_ids)
        # before: 8 simultaneous callers each checked "active?" and then enqueued: up to 7 copies of a job
        assert entries == Counter({key: 1 for key in keys}), entries
    finally:
        queue.empty()
