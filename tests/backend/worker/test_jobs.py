"""Scoring jobs run by real ``rq worker`` processes with the real local model; SIGKILL recovery."""

from __future__ import annotations

import pytest

from backend.ledger import Ledger, schema
from backend.worker.queueing import enqueue_scoring
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import count_rows, local_config, make_tasks
from tests.backend.worker.rq_process import wait_until

pytestmark = [pytest.mark.redis, pytest.mark.llm]

def test_worker_scores_records_and_is_idempotent(env, queue, workers):
    ledger = Ledger(env["DATABASE_URL"])
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=3)
    spec = config.spec(LABEL_CONFIG)
    version = config.model_version(spec)
    tasks = make_tasks(5) + [{"id": 99, "data": {"grounding": "only half the fields"}}]
    jobs = enqueue_scoring(queue, ledger, "7", tasks, label_config=LABEL_CONFIG, config=config, model_version=version)
    assert len(jobs) == 2
    proc = workers()
    ids = [str(t["id"]) for t in tasks]
    wait_until(lambda: not ledger.pending("7", ids, version), timeout=240, what="6 results in the ledger")
    results = {r.id: r for r in ledger.results("7", model_version=version)}
    assert results["99"].reason == "malformed_task" and results["99"].error.detail.startswith("missing_field")
    for task_id in map(str, range(1, 6)):
        res = results[task_id]
        assert res.error is None and res.prediction in ("0", "1")
        assert sum(res.probs.values()) == pytest.approx(1.0)
        assert res.original == str(int(task_id) % 2)  # the annotation's choice
        assert [m.member_id for m in res.members] == ["local:smollm2/fc-premise-hypothesis@v1"]
    assert [c.label for c in ledger.crowd_labels("7")["3"]] == ["1"]
    wait_until(lambda: all(ledger.jobs.get(j).status == "finished" for j in jobs), timeout=30, what="jobs finished")
    # enqueueing the same tasks again finds nothing to do
    assert enqueue_scoring(queue, ledger, "7", tasks, label_config=LABEL_CONFIG, config=config,
                           model_version=version) == []
    assert count_rows(ledger, schema.results) == 6
    assert "Traceback" not in proc.log_tail()


def test_sigkilled_worker_job_is_rerun_without_duplicates(env, queue, workers):
    ledger = Ledger(env["DATABASE_URL"])
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=12)
    spec = config.spec(LABEL_CONFIG)
    version = config.model_version(spec)
    tasks = make_tasks(12)
    ids = [str(t["id"]) for t in tasks]
    (job_id,) = enqueue_scoring(queue, ledger, "7", tasks, label_config=LABEL_CONFIG, config=config,
                                model_version=version)
    first = workers()
    wait_until(lambda: len(ids) - len(ledger.pending("7", ids, version)) >= 4, timeout=240,
               what="the first saved results")
    assert ledger.pending("7", ids, version), "the job finished before it could be killed: make it longer"
    first.kill()
    stored_at_kill = len(ids) - len(ledger.pending("7", ids, version))
    assert ledger.jobs.get(job_id).status == "started"
    workers()  # a fresh worker finds the dead worker's job (same host, pid gone) and rq retries it
    wait_until(lambda: not ledger.pending("7", ids, version), timeout=300, what="the retried job")
    wait_until(lambda: ledger.jobs.get(job_id).status == "finished", timeout=30, what="job finished")
    assert ledger.jobs.get(job_id).attempts == 2
    assert count_rows(ledger, schema.results) == 12
    assert count_rows(ledger, schema.members) == 12
    assert 4 <= stored_at_kill < 12


def test_label_audit_worker_command_runs_the_queue(env, queue, redis_url, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.backend.worker.rq_process import REPO

    ledger = Ledger(env["DATABASE_URL"])
    config = local_config(prompts=["fc-premise-hypothesis"], batch_size=2)
    version = config.model_version(config.spec(LABEL_CONFIG))
    tasks = make_tasks(2)
    enqueue_scoring(queue, ledger, "9", tasks, label_config=LABEL_CONFIG, config=config, model_version=version)
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("label-audit")), "worker", "--burst", "--queue", queue.name],
        cwd=REPO, env={**os.environ, **env, "REDIS_URL": redis_url, "OMP_WAIT_POLICY": "PASSIVE"},
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ledger.pending("9", [str(t["id"]) for t in tasks], version) == []
