"""The ML backend with an image project: the blind-ensemble refusal at /setup and the webhook (nothing
queued), and /predict checking stored verdicts against the tasks' current images (fetched from the
instance, here a recording ``http.server`` standing in for Label Studio's upload path)."""

from __future__ import annotations

import base64
from typing import Iterator

import pytest

from backend.images.fetch import ImageFetcher
from backend.labelstudio.modelname import version_key
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.tasks import tasks_to_items
from backend.scoring.results import ItemResult, input_hash
from backend.server import create_app
from backend.server.auth import BasicAuth
from backend.worker.ensemble_config import EnsembleConfig
from backend.ledger import Ledger
from backend.worker.safety import scoring_queue
from tests.backend.server.conftest import CLOSED_SERVER_MEMBER
from tests.support.http_recorder import Recorder, image_bytes

pytestmark = [pytest.mark.redis]

AUTH = {"Authorization": "Basic " + base64.b64encode(b"ls:s3cret").decode()}
CONFIG = ("<View><Image name='image' value='$image'/><Choices name='animal' toName='image'>"
          "<Choice value='Cat'/><Choice value='Dog'/></Choices></View>")
RED, BLUE = image_bytes(color="red"), image_bytes(color="blue")


@pytest.fixture
def ledger(tmp_path) -> Ledger:
    return Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")


@pytest.fixture
def queue(redis_url):
    import uuid

    from redis import Redis

    q = scoring_queue(f"test-img-{uuid.uuid4().hex[:10]}", Redis.from_url(redis_url))
    yield q
    q.empty()


@pytest.fixture
def instance(monkeypatch) -> Iterator[Recorder]:
    rec = Recorder(routes={"/data/upload/1/red.png": (200, {}, RED), "/data/upload/1/blue.png": (200, {}, BLUE)}).start()
    monkeypatch.setenv("LABEL_STUDIO_URL", rec.url)
    yield rec
    rec.stop()


def app_for(ledger, queue, *members):
    config = EnsembleConfig(members=members, batch_size=4)
    return create_app(ledger=ledger, queue=queue, config=config, auth=BasicAuth("ls", "s3cret")).test_client()


def task(task_id: int, image: str) -> dict:
    return {"id": task_id, "data": {"image": image}, "annotations": [{"id": task_id, "completed_by": 1, "result": [
        {"from_name": "animal", "to_name": "image", "type": "choices", "value": {"choices": ["Cat"]}}]}]}


def test_a_blind_ensemble_is_refused_at_setup_and_queues_nothing(ledger, queue):
    client = app_for(ledger, queue, {"provider": "local", "model": "smollm2"})
    resp = client.post("/setup", json={"project": "7.1", "schema": CONFIG}, headers=AUTH)
    assert resp.status_code == 400 and "no member of the ensemble can see" in resp.json["error"]
    created = {"action": "TASKS_CREATED", "project": {"id": 7, "label_config": CONFIG},
               "tasks": [task(1, "/data/upload/1/red.png")]}
    assert client.post("/webhook", json=created, headers=AUTH).status_code == 400
    assert queue.count == 0


def test_predict_serves_a_stored_verdict_only_while_the_image_is_the_same(ledger, queue, instance):
    client = app_for(ledger, queue, CLOSED_SERVER_MEMBER)
    version = version_key(client.post("/setup", json={"project": "7.1", "schema": CONFIG}, headers=AUTH).json["model_version"])
    spec = spec_from_label_config(CONFIG)
    with ImageFetcher(instance.url, None) as fetcher:
        (item,) = tasks_to_items([task(1, "/data/upload/1/red.png")], spec, fetcher=fetcher).items
    ledger.record("7", version, ItemResult(id="1", original="Cat", prediction="Dog", confidence=0.9,
                                           probs={"Cat": 0.1, "Dog": 0.9}, flagged=True,
                                           input_hash=input_hash(item.fields, item.images)))
    instance.seen.clear()
    body = {"project": "7.1", "label_config": CONFIG,
            "tasks": [task(1, "/data/upload/1/red.png"), task(2, "/data/upload/1/blue.png")]}
    resp = client.post("/predict", json=body, headers=AUTH)
    first, second = resp.json["results"]
    assert first["score"] == pytest.approx(0.9) and second == []
    assert [path for path, _ in instance.seen] == ["/data/upload/1/red.png"]  # only the scored task is fetched
    assert [t["id"] for t in queue.jobs[0].kwargs["tasks"]] == [2]
    edited = {**body, "tasks": [task(1, "/data/upload/1/blue.png")]}  # the task now shows another image
    again = client.post("/predict", json=edited, headers=AUTH)
    assert again.json["results"] == [[]]
    assert sorted(t["id"] for job in queue.jobs for t in job.kwargs["tasks"]) == [1, 2]
