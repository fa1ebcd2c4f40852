"""Job ids are global to a Redis database: two deployments' queues on one Redis never block each other."""

from __future__ import annotations

import uuid

import pytest
from redis import Redis

from backend.ledger import Ledger
from backend.worker.queueing import enqueue_scoring
from backend.worker.safety import scoring_queue
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import local_config, make_tasks

pytestmark = pytest.mark.redis


def test_the_same_project_on_two_queues_of_one_redis_is_queued_on_both(redis_url, tmp_path):
    redis = Redis.from_url(redis_url)
    queues = [scoring_queue(f"test-keys-{uuid.uuid4().hex[:10]}", redis) for _ in range(2)]
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=10)
    version = config.model_version(config.spec(LABEL_CONFIG))
    tasks = make_tasks(3)
    try:
        ids = [enqueue_scoring(q, Ledger(f"sqlite:///{tmp_path / f'ledger{i}.sqlite'}"), "1", tasks,
                               label_config=LABEL_CONFIG, config=config, model_version=version)
               for i, q in enumerate(queues)]
        assert len(ids[0]) == len(ids[1]) == 1 and ids[0] != ids[1]
        # before: the second deployment found the first one's job "active" and queued nothing
        assert [q.count for q in queues] == [1, 1]
        assert [q.job_ids for q in queues] == ids
    finally:
        for q in queues:
            q.empty()
