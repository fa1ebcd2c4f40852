"""One bad task is an error for that task only: the rest of its batch is scored (real rq worker, real
PostgreSQL ledger, the local model)."""

from __future__ import annotations

import pytest

from backend.ledger import Ledger
from backend.worker.queueing import enqueue_scoring
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import local_config, make_tasks
from tests.backend.worker.rq_process import wait_until

pytestmark = [pytest.mark.redis]


def test_an_over_long_id_and_text_fail_alone_on_postgresql(queue, env, workers, postgres_url) -> None:
    good, long_id, long_text = make_tasks(3)
    long_id["id"] = "7" * 300  # before: overflowed the 255-character key column, failing the whole batch
    long_text["data"]["generated_text"] = "The cat sat. " * 2000  # 26 000 characters > the 20 000 cap
    ledger = Ledger(postgres_url)
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=16)
    version = config.model_version(config.spec(LABEL_CONFIG))
    (key,) = enqueue_scoring(queue, ledger, "1", [good, long_id, long_text], label_config=LABEL_CONFIG,
                             config=config, model_version=version)
    worker = workers(extra_env={"DATABASE_URL": postgres_url})
    wait_until(lambda: (ledger.jobs.get(key).status in ("finished", "failed")), timeout=240, what="the job")
    record = ledger.jobs.get(key)
    assert record.status == "finished", (record, worker.log_tail())
    results = {r.id: r for r in ledger.results("1", model_version=version)}
    assert results[str(good["id"])].error is None and results[str(good["id"])].prediction is not None
    (too_long_id,) = [r for r in results.values() if r.id.startswith("777")]
    assert "id_too_long" in str(too_long_id.error) and len(too_long_id.id) <= 255
    assert "too_long" in str(results[str(long_text["id"])].error)
    assert record.n_errors == 2 and record.n_scored == 1
