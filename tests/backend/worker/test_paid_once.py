"""Eight simultaneous enqueues of the same tasks, two real workers: every (member, prompt, item) is paid once.

The LLM is the test-only latency-bound OpenAI-protocol server (it judges nothing; it counts calls).
"""

from __future__ import annotations

import threading

import pytest
from redis import Redis

from backend.ledger import Ledger
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.queueing import enqueue_scoring
from backend.worker.safety import scoring_queue
from tests.backend.reliability.llm_server import LLMServer
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import count_rows, make_tasks
from tests.backend.worker.rq_process import wait_until

pytestmark = [pytest.mark.redis]


def test_two_workers_pay_each_call_once_after_eight_simultaneous_enqueues(queue, env, workers, redis_url) -> None:
    llm = LLMServer(latency=0.05)
    try:
        member = f"openai:bench@{llm.url}"
        run_env = {"LABEL_AUDIT_MEMBERS": member, "LABEL_AUDIT_MEMBERS_FILE": "", "OPENAI_API_KEY": "not-a-key"}
        config = EnsembleConfig(Settings.from_env({**env, **run_env, "LABEL_AUDIT_BATCH": "5"}))
        version = config.model_version(config.spec(LABEL_CONFIG))
        ledger = Ledger(env["DATABASE_URL"])
        tasks = make_tasks(20)
        barrier = threading.Barrier(8, timeout=30)

        def client() -> None:
            barrier.wait()
            enqueue_scoring(scoring_queue(queue.name, Redis.from_url(redis_url)), Ledger(env["DATABASE_URL"]), "1",
                            tasks, label_config=LABEL_CONFIG, config=config, model_version=version)

        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert queue.count == 4  # 20 tasks in batches of 5; before: up to 8 entries per batch
        for _ in range(2):
            workers(extra_env={**run_env, "LABEL_AUDIT_BATCH": "5"})
        from backend.ledger import schema

        wait_until(lambda: count_rows(ledger, schema.results) == 20 and queue.count == 0
                   and all(j.status == "finished" for j in ledger.jobs.for_project("1")), timeout=180,
                   what="20 scored tasks")
        assert llm.calls and set(llm.calls.values()) == {1}, llm.calls.most_common(3)  # each prompt paid once
        assert len(llm.calls) % 20 == 0  # 20 items x the member's prompts, nothing else
    finally:
        llm.close()
