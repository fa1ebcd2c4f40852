"""What Label Studio 1.23.2 accepts from /predict for a task that is not scored yet.

Measured, not assumed: a probe backend answers one batch holding a scored task and an unscored one,
with a different shape in the unscored task's slot, and the test reads what LS stored. The product
backend (``backend.server.app``) uses the shape that keeps the scored task's prediction and stores
nothing for the unscored one: an empty list in its slot.
"""

from __future__ import annotations

import threading
import uuid

import pytest
from flask import Flask, jsonify, request
from werkzeug.serving import make_server

from backend.labelstudio.client import iter_tasks
from tests.backend.server.conftest import LABEL_CONFIG

pytestmark = [pytest.mark.labelstudio]

PREDICTION = {"result": [{"from_name": "label", "to_name": "generated_text", "type": "choices",
                          "value": {"choices": ["1"]}}], "score": 0.9, "model_version": "probe"}
SHAPES = {
    "empty-list-slot": lambda: [],
    "no-result-key": lambda: {"model_version": "probe"},
    "empty-result": lambda: {"result": [], "score": 0.0, "model_version": "probe"},
}


@pytest.fixture()
def probe_backend():
    """A minimal ML backend whose /predict answer for unscored tasks is set per test."""
    app = Flask("probe")
    state = {"shape": "empty-list-slot", "whole": None, "calls": 0}

    @app.get("/health")
    def health():
        return jsonify({"status": "UP"})

    @app.post("/setup")
    def setup():
        return jsonify({"model_version": "probe"})

    @app.post("/predict")
    def predict():
        state["calls"] += 1
        if state["whole"] is not None:
            return jsonify(state["whole"])
        tasks = request.get_json()["tasks"]
        return jsonify({"results": [PREDICTION if t["data"].get("scored") else SHAPES[state["shape"]]()
                                    for t in tasks]})

    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", state
    finally:
        server.shutdown()


def _run(label_studio, url: str) -> dict[str, list]:
    client = label_studio.client
    tasks = [{"data": {"grounding": "doc", "generated_text": "scored claim", "scored": True}},
             {"data": {"grounding": "doc", "generated_text": "unscored claim"}}]
    project, ids = label_studio.create_project(LABEL_CONFIG, tasks, title=f"shape {uuid.uuid4().hex[:6]}")
    client.ml.create(project=project, url=url, title="probe", is_interactive=False)
    client.actions.create(id="retrieve_tasks_predictions", project=project,
                          selected_items={"all": True, "excluded": []})
    by_id = {int(t.id): list(t.predictions or []) for t in iter_tasks(client, project, with_annotations=True)}
    return {"scored": by_id[ids[0]], "unscored": by_id[ids[1]]}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_unscored_slot_shapes(label_studio, probe_backend, shape):
    url, state = probe_backend
    state["shape"] = shape
    stored = _run(label_studio, url)
    assert state["calls"] >= 1
    assert len(stored["scored"]) == 1 and stored["scored"][0].score == pytest.approx(0.9)
    if shape == "empty-result":
        # LS stores an empty prediction: it would show in the Data Manager with score 0 and block
        # later retrievals for this model_version, so the backend must not answer this way
        assert len(stored["unscored"]) == 1 and stored["unscored"][0].result == []
    else:
        assert stored["unscored"] == []


def test_an_empty_results_list_is_rejected_as_a_whole(label_studio, probe_backend):
    url, state = probe_backend
    state["whole"] = {"results": []}
    stored = _run(label_studio, url)
    assert stored == {"scored": [], "unscored": []}
