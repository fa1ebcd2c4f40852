"""End to end on a real Label Studio 1.23.2: connect the backend, score through a real rq worker with the
local model, see the predictions (with scores) in the Data Manager; webhooks, a malformed task, ``audit``."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml
from redis import Redis
from rq import Queue

from backend.labelstudio.client import import_tasks, iter_tasks
from backend.ledger import Ledger
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.server.backend_process import REPO, BackendProcess
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.rq_process import RQWorkerProcess, wait_until

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

USER, PASSWORD = "label-studio", "backend-pass"
PROMPTS = ["fc-premise-hypothesis"]
FACTS = [
    ("The Eiffel Tower is in Paris and was finished in 1889.", "The Eiffel Tower was finished in 1889.", "1"),
    ("The Eiffel Tower is in Paris and was finished in 1889.", "The Eiffel Tower is in Rome.", "0"),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level water boils at 100 C.", "1"),
    ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 50 degrees at sea level.", "0"),
    ("Mary bought three apples and ate one of them.", "Mary ate an apple.", "1"),
    ("Mary bought three apples and ate one of them.", "Mary bought ten pears.", "0"),
]
FLIPPED = {3, 8, 14, 21}  # items whose annotation is deliberately wrong


def labelled_tasks(n: int) -> list[dict]:
    tasks = []
    for i in range(n):
        grounding, claim, label = FACTS[i % len(FACTS)]
        if i in FLIPPED:
            label = "0" if label == "1" else "1"
        tasks.append({
            "data": {"grounding": f"({i}) {grounding}", "generated_text": claim},
            "annotations": [{"result": [{"from_name": "label", "to_name": "generated_text", "type": "choices",
                                         "value": {"choices": [label]}}]}],
        })
    return tasks


@pytest.fixture()
def stack(tmp_path, label_studio, redis_url, smollm2_path):
    """Backend (label-audit serve) + one rq worker, sharing a ledger and a private queue."""
    members = tmp_path / "members.yaml"
    members.write_text(yaml.safe_dump([{"provider": "local", "model": "smollm2", "prompts": PROMPTS}]))
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}",
        "LABEL_AUDIT_HOME": str(tmp_path),
        "REDIS_URL": redis_url,
        "LABEL_AUDIT_QUEUE": f"e2e-{uuid.uuid4().hex[:10]}",
        "LABEL_AUDIT_MEMBERS_FILE": str(members),
        "LABEL_AUDIT_BATCH": "8",
        "BASIC_AUTH_USER": USER,
        "BASIC_AUTH_PASS": PASSWORD,
    }
    backend = BackendProcess(env).start()
    worker = RQWorkerProcess(redis_url, env["LABEL_AUDIT_QUEUE"], {
        **env, "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token}).start()
    try:
        yield env, backend, worker
    finally:
        worker.stop()
        backend.stop()
        Queue(env["LABEL_AUDIT_QUEUE"], connection=Redis.from_url(redis_url)).empty()


def _config(env: dict[str, str]) -> EnsembleConfig:
    return EnsembleConfig(Settings.from_env(env))


def _predictions(client, project: int) -> dict[int, list]:
    return {int(t.id): list(t.predictions or []) for t in iter_tasks(client, project, with_annotations=True)}


def test_backend_scores_a_project_in_label_studio(label_studio, stack):
    env, backend, worker = stack
    client = label_studio.client
    # LS checks that the config's fields exist; a list where text belongs gets through and is malformed for us
    tasks = labelled_tasks(30) + [{"data": {"grounding": "a task with a list for a claim",
                                            "generated_text": ["not", "text"]}}]
    project, task_ids = label_studio.create_project(LABEL_CONFIG, tasks)
    ml = client.ml.create(project=project, url=backend.url, title="label-audit", auth_method="BASIC_AUTH",
                          basic_auth_user=USER, basic_auth_pass=PASSWORD, is_interactive=False)
    config = _config(env)
    version = config.model_version(config.spec(LABEL_CONFIG))
    name = config.ls_version(config.spec(LABEL_CONFIG))  # what LS stores: judges, rule, then the key
    assert client.ml.get(id=ml.id).model_version == name  # LS called /setup with our auth

    # "Retrieve predictions": /predict answers [] per unscored task (LS stores nothing) and enqueues them
    client.actions.create(id="retrieve_tasks_predictions", project=project, selected_items={"all": True,
                                                                                            "excluded": []})
    ledger = Ledger(env["DATABASE_URL"])
    ids = [str(t) for t in task_ids]
    wait_until(lambda: not ledger.pending(str(project), ids, version), timeout=600, what="31 tasks in the ledger",
               interval=1.0)
    results = {r.id: r for r in ledger.results(str(project), model_version=version)}
    malformed = results[ids[-1]]
    assert str(malformed.error).startswith("malformed_task: bad_value")
    # the worker bulk-imported one ensemble-level prediction per scored task
    wait_until(lambda: not ledger.unimported(str(project), version), timeout=60, what="predictions imported")
    preds = _predictions(client, project)
    for task_id in task_ids[:-1]:
        res = results[str(task_id)]
        assert res.original == labelled_tasks(30)[task_ids.index(task_id)]["annotations"][0]["result"][0][
            "value"]["choices"][0]
        if res.prediction is None:
            assert preds[task_id] == []
            continue
        (pred,) = preds[task_id]
        assert pred.model_version == name  # the worker's import and /predict's answers carry one name
        assert pred.score == pytest.approx(res.confidence)
        assert pred.result[0]["value"]["choices"] == [res.prediction]
    assert preds[task_ids[-1]] == []
    scored = [r for r in results.values() if r.prediction is not None]
    assert len(scored) >= 25  # the tiny model answers almost always; the plumbing must carry every answer

    # retrieving again creates no duplicate (LS skips tasks holding this model_version)
    client.actions.create(id="retrieve_tasks_predictions", project=project, selected_items={"all": True,
                                                                                            "excluded": []})
    assert all(len(p) <= 1 for p in _predictions(client, project).values())
    assert "Traceback" not in worker.log_tail() and "Traceback" not in backend.log_tail()

    # new tasks reach the backend through a TASKS_CREATED webhook (with basic auth, which LS's own
    # annotation webhook would not send)
    auth = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    client.webhooks.create(url=f"{backend.url}/webhook", project=project, send_payload=True,
                           actions=["TASKS_CREATED", "PROJECT_UPDATED"], headers={"Authorization": auth})
    new_ids = import_tasks(client, project, labelled_tasks(2))
    wait_until(lambda: all(_predictions(client, project)[t] for t in new_ids), timeout=300,
               what="webhook-driven predictions for the new tasks", interval=1.0)


def test_audit_command_scores_an_existing_project(label_studio, stack):
    env, _backend, _worker = stack
    project, task_ids = label_studio.create_project(LABEL_CONFIG, labelled_tasks(6))
    cli_env = {**env, "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token}
    prices = REPO / "examples" / "prices.example.yaml"
    dry = subprocess.run(
        [str(Path(sys.executable).with_name("label-audit")), "audit", "--project", str(project), "--dry-run",
         "--json", "--prices", str(prices)],
        cwd=REPO, env={**os.environ, **cli_env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600)
    assert dry.returncode == 0, dry.stderr[-3000:]
    estimate = json.loads(dry.stdout)["dry_run"]
    n_members = len(_config(env).build(_config(env).spec(LABEL_CONFIG)))
    assert estimate["items"] == 6 and estimate["calls"] + estimate["cached_calls"] == 6 * n_members
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("label-audit")), "audit", "--project", str(project), "--wait",
         "--json", "--timeout", "400", "--prices", str(prices)],
        cwd=REPO, env={**os.environ, **cli_env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert summary["items"] == 6
    usage = summary["usage"]  # rebuilt from the ledger: every member's answers, with their token counts
    assert sum(r["calls"] + r["cached"] + r["errors"] for r in usage["members"]) == 6 * n_members
    assert summary["model_version"] == _config(env).model_version(_config(env).spec(LABEL_CONFIG))
    assert summary["quorum"] == {"min_share": 0.5, "every_model": True}  # the settings' quorum, as `score` reports
    assert label_studio.token not in proc.stdout + proc.stderr
    preds = _predictions(label_studio.client, project)
    assert sum(len(p) for p in preds.values()) == summary["scored"]
