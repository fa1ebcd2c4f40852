"""A task whose input data changed is re-scored, never answered with the verdict of its old text
(the real backend over HTTP, the real ledger and Redis queue)."""

from __future__ import annotations

from backend.labelstudio.modelname import version_key
from backend.labelstudio.tasks import tasks_to_items
from backend.ledger import Ledger
from backend.scoring.results import ItemResult, input_hash
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.security.test_backend_http import GOOD, LABEL_CONFIG, _request, backend  # noqa: F401


def _task(text: str) -> dict:
    return {"id": 5, "data": {"grounding": "The cat sat on the mat.", "generated_text": text},
            "annotations": [{"id": 50, "completed_by": 1, "result": [
                {"from_name": "label", "to_name": "generated_text", "type": "choices", "value": {"choices": ["0"]}}]}]}


def test_changed_task_data_is_rescored_not_served_stale(backend) -> None:  # noqa: F811
    status, body, _ = _request(f"{backend.url}/setup", body={"project": "7.1", "schema": LABEL_CONFIG}, headers=GOOD)
    version = version_key(body["model_version"])  # Label Studio is given the readable name; the ledger keys by the key
    original = _task("The cat sat on the mat.")
    spec = EnsembleConfig(members=({"provider": "openai", "model": "smol", "base_url": "http://127.0.0.1:9/v1"},)
                          ).spec(LABEL_CONFIG)
    (item,) = tasks_to_items([original], spec).items
    ledger = Ledger(backend.env["DATABASE_URL"])
    ledger.record_many("7", version, [ItemResult.from_json({
        "id": "5", "original": "0", "prediction": "1", "confidence": 0.9, "probs": {"0": 0.1, "1": 0.9},
        "flagged": True, "input_hash": input_hash(item.fields)})])

    status, body, _ = _request(f"{backend.url}/predict", headers=GOOD,
                               body={"project": "7.1", "tasks": [original], "label_config": LABEL_CONFIG})
    assert status == 200 and body["results"][0]["score"] == 0.9 and body["queued_jobs"] == []

    planted = _task("The dog sat on the mat.")  # same task id, edited text
    status, body, _ = _request(f"{backend.url}/predict", headers=GOOD,
                               body={"project": "7.1", "tasks": [planted], "label_config": LABEL_CONFIG})
    assert status == 200 and body["results"] == [[]], "a verdict on other text was served"
    assert len(body["queued_jobs"]) == 1
    new_hash = {"5": input_hash(tasks_to_items([planted], spec).items[0].fields)}
    assert ledger.pending("7", ["5"], version, input_hashes=new_hash) == ["5"]
