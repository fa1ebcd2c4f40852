"""The ML-backend protocol on the Flask test client, with a real Redis queue and a real SQLite ledger."""

from __future__ import annotations

import base64

import pytest
from rq import Queue

from backend.labelstudio.modelname import version_key
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.tasks import tasks_to_items
from backend.scoring.results import ItemResult, input_hash
from backend.server import create_app
from backend.server.auth import BasicAuth
from backend.worker.queueing import redis_connection
from tests.backend.server.conftest import LABEL_CONFIG
from tests.support.services import free_port

AUTH = {"Authorization": "Basic " + base64.b64encode(b"ls:s3cret").decode()}


def _task(task_id: int, label: str | None = "0") -> dict:
    anns = [] if label is None else [{"id": task_id * 10, "completed_by": 1, "result": [
        {"from_name": "label", "to_name": "generated_text", "type": "choices", "value": {"choices": [label]}}]}]
    return {"id": task_id, "data": {"grounding": f"doc {task_id}", "generated_text": "claim"}, "annotations": anns}


def _hash(task: dict) -> str:
    """The input hash the worker stores with a verdict (a verdict only answers for these inputs)."""
    spec = spec_from_label_config(LABEL_CONFIG)
    return input_hash(tasks_to_items([task], spec).items[0].fields)


@pytest.fixture()
def app(ledger, queue, config):
    return create_app(ledger=ledger, queue=queue, config=config, auth=BasicAuth("ls", "s3cret"))


@pytest.fixture()
def client(app):
    return app.test_client()


def _setup(client, project="7") -> str:
    """The run's key (ledger, jobs) behind the readable name /setup gives Label Studio."""
    resp = client.post("/setup", json={"project": f"{project}.1732000000", "schema": LABEL_CONFIG}, headers=AUTH)
    assert resp.status_code == 200, resp.json
    return version_key(resp.json["model_version"])


def test_health_and_auth(client):
    assert client.get("/health").status_code == 401
    bad = {"Authorization": "Basic " + base64.b64encode(b"ls:wrong").decode()}
    assert client.get("/health", headers=bad).status_code == 401
    resp = client.get("/health", headers=AUTH)
    assert resp.status_code == 200 and resp.json["status"] == "UP"


def test_setup_derives_model_version_and_remembers_config(client, ledger):
    version = _setup(client)
    assert version.startswith("label-audit-") and len(version) > len("label-audit-")
    name = client.post("/setup", json={"project": "7.1", "schema": LABEL_CONFIG}, headers=AUTH).json["model_version"]
    # what Label Studio stores and shows: the judges and the rule, then the key
    assert name.endswith(f" · {version}") and "avg ≥ 0.55" in name and name != version
    assert ledger.project("7")["label_config"] == LABEL_CONFIG
    assert client.get("/versions?project=7.1", headers=AUTH).json == {"versions": [name]}
    resp = client.post("/setup", json={"project": "8.1", "schema": "<View><Text name='t' value='$t'/></View>"},
                       headers=AUTH)
    assert resp.status_code == 400 and "Choices" in resp.json["error"]


def test_predict_answers_scored_tasks_and_enqueues_the_rest_once(client, ledger, queue):
    version = _setup(client)
    ledger.record("7", version, ItemResult(id="1", original="0", prediction="1", confidence=0.83,
                                           probs={"0": 0.17, "1": 0.83}, flagged=True, input_hash=_hash(_task(1))))
    body = {"project": "7.1732000000", "label_config": LABEL_CONFIG, "tasks": [_task(1), _task(2), _task(3)]}
    resp = client.post("/predict", json=body, headers=AUTH)
    assert resp.status_code == 200
    first, second, third = resp.json["results"]
    assert first["score"] == pytest.approx(0.83) and version_key(first["model_version"]) == version
    assert first["model_version"] == resp.json["model_version"] != version  # the readable name, as /setup said
    assert first["result"] == [{"from_name": "label", "to_name": "generated_text", "type": "choices",
                                "value": {"choices": ["1"]}, "id": f"{version}-suspect"}]  # flagged: tab marker
    assert second == [] and third == []
    assert queue.count == 1  # tasks 2 and 3 make one batch of batch_size 2
    job = queue.jobs[0]
    assert [t["id"] for t in job.kwargs["tasks"]] == [2, 3]
    assert job.kwargs["model_version"] == version and job.retries_left == 3
    again = client.post("/predict", json=body, headers=AUTH)
    assert again.json["queued_jobs"] == resp.json["queued_jobs"]
    assert queue.count == 1  # idempotent: the same batch is not queued twice
    assert ledger.unimported("7", version) == []  # answered by /predict: the worker will not re-import it


def test_predict_without_redis_still_answers_from_the_ledger(ledger, config):
    dead = Queue("nowhere", connection=redis_connection(f"redis://127.0.0.1:{free_port()}/0"))
    client = create_app(ledger=ledger, queue=dead, config=config, auth=BasicAuth(),
                        insecure_no_auth=True).test_client()
    version = version_key(client.post("/setup", json={"project": "7.1", "schema": LABEL_CONFIG}).json["model_version"])
    ledger.record("7", version, ItemResult(id="1", original="0", prediction="0", confidence=0.6,
                                           probs={"0": 0.6, "1": 0.4}, flagged=False, input_hash=_hash(_task(1))))
    resp = client.post("/predict", json={"project": "7.1", "tasks": [_task(1), _task(2)]})
    assert resp.status_code == 200
    assert resp.json["results"][0]["score"] == pytest.approx(0.6)
    assert resp.json["results"][1] == [] and resp.json["queued_jobs"] == []


def test_tasks_without_id_are_recorded_not_queued(client, ledger, queue):
    version = _setup(client)
    created = {"action": "TASKS_CREATED", "project": {"id": 7}, "tasks": [{"data": {"grounding": "x"}}, _task(5)]}
    resp = client.post("/webhook", json=created, headers=AUTH)
    assert resp.status_code == 200 and queue.count == 1
    assert [t["id"] for t in queue.jobs[0].kwargs["tasks"]] == [5]
    (bad,) = ledger.results("7", model_version=version)
    assert bad.id == "task-without-id#0" and str(bad.error) == "malformed_task: missing_id: the task has no id"



def test_a_task_with_malformed_annotations_does_not_stop_its_batch_from_being_queued(client, queue):
    _setup(client)
    bad = {**_task(6), "annotations": 5}
    created = {"action": "TASKS_CREATED", "project": {"id": 7}, "tasks": [_task(5), bad]}
    resp = client.post("/webhook", json=created, headers=AUTH)
    assert resp.status_code == 200 and len(resp.json["jobs"]) == 1 and queue.count == 1
    # both travel: the worker records task 6 as malformed (tasks_to_items) and scores task 5
    queued = queue.jobs[0].kwargs["tasks"]
    assert [t["id"] for t in queued] == [5, 6] and queued[1]["annotations"] == 5

def test_predict_rejects_requests_it_cannot_serve(client):
    assert client.post("/predict", json={"project": "7.1", "tasks": []}, headers=AUTH).status_code == 400
    resp = client.post("/predict", json={"project": "99.1", "tasks": [_task(1)]}, headers=AUTH)
    assert resp.status_code == 400 and "no label config" in resp.json["error"]


def test_webhooks(client, queue):
    version = _setup(client)
    # LS's own annotation webhook carries no credentials: accepted and ignored
    resp = client.post("/webhook", json={"action": "ANNOTATION_CREATED", "project": {"id": 7}})
    assert resp.status_code == 200 and resp.json["status"] == "ignored"
    created = {"action": "TASKS_CREATED", "project": {"id": 7, "label_config": LABEL_CONFIG},
               "tasks": [_task(4, None)]}
    # without credentials nothing is read nor queued (LS's own webhook sends none); wrong ones are refused
    unauthenticated = client.post("/webhook", json=created)
    assert unauthenticated.status_code == 200 and unauthenticated.json["status"] == "ignored" and queue.count == 0
    wrong = {"Authorization": "Basic " + base64.b64encode(b"ls:wrong").decode()}
    assert client.post("/webhook", json=created, headers=wrong).status_code == 401
    resp = client.post("/webhook", json=created, headers=AUTH)
    assert resp.json["status"] == "queued" and queue.count == 1
    new_config = LABEL_CONFIG.replace('<Choice value="1"/>', '<Choice value="1"/><Choice value="2"/>')
    resp = client.post("/webhook", json={"action": "PROJECT_UPDATED", "project": {"id": 7, "label_config": new_config}},
                       headers=AUTH)
    assert resp.status_code == 200 and resp.json["model_version"] != version
    assert client.get("/versions?project=7", headers=AUTH).json["versions"] == [resp.json["model_version"]]
    training = client.post("/webhook", json={"action": "START_TRAINING", "project": {"id": 7}}, headers=AUTH)
    assert training.status_code == 200


def test_auth_needs_both_halves():
    with pytest.raises(ValueError):
        BasicAuth("user", None)
    assert "s3cret" not in repr(BasicAuth("ls", "s3cret"))
