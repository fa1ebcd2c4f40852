"""The Label Studio ML backend (Flask): /health, /setup, /predict, /webhook, /versions.

``/predict`` never calls an LLM (LS gives up after ``ML_TIMEOUT_PREDICT``, 100 s): tasks already in
the ledger get their ensemble-level prediction at once; the others are enqueued for the RQ workers,
which bulk-import their predictions when done.

What LS 1.23.2 does with the slot of a task that is not scored yet (measured in
``tests/backend/server/test_ls_unscored_shapes.py``): an empty list ``[]`` stores nothing for that task
and keeps the other tasks' predictions — the answer used here; ``{}`` without ``result`` is skipped with
an error in LS's log; ``{"result": []}`` stores an empty prediction (it would show a 0 score and stop
LS from asking again for this model version); ``{"results": []}`` is rejected for the whole batch. (From LS's source: a list shorter than the
tasks sent makes LS drop the batch, so every task gets a slot.)
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, request
from rq import Queue

from backend.labelstudio.guidelines import fetch_guidelines
from backend.ledger import Ledger
from backend.server.auth import BasicAuth
from backend.server.projects import ProjectSpecs, project_id
from backend.worker.config import EnsembleConfig
from backend.worker.predictions import prediction_for
from backend.worker.queueing import enqueue_scoring, queue_name, redis_connection

log = logging.getLogger(__name__)

#: Webhook actions LS sends without credentials (its auto-created webhook); ignored, so harmless.
UNAUTHENTICATED_ACTIONS = frozenset({
    "ANNOTATION_CREATED", "ANNOTATIONS_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_DELETED",
})
CONFIG_ACTIONS = frozenset({"PROJECT_CREATED", "PROJECT_UPDATED"})


def create_app(
    *,
    ledger: Ledger | None = None,
    queue: Queue | None = None,
    config: EnsembleConfig | None = None,
    auth: BasicAuth | None = None,
) -> Flask:
    """Build the backend app; every part defaults to its environment variable (see ``label-audit serve``)."""
    app = Flask("label-audit-backend")
    ledger = ledger or Ledger()
    config = config or EnsembleConfig.from_env()
    auth = auth or BasicAuth.from_env()
    queue = queue if queue is not None else Queue(queue_name(), connection=redis_connection())
    specs = ProjectSpecs(ledger, config)

    def denied() -> Response:
        resp = jsonify({"error": "authentication required"})
        resp.status_code = 401
        resp.headers["WWW-Authenticate"] = 'Basic realm="label-audit"'
        return resp

    def bad_request(message: str, status: int = 400) -> tuple[Response, int]:
        return jsonify({"error": message}), status

    def enqueue(ctx, tasks: list[dict[str, Any]]) -> list[str]:
        """Enqueue without failing the request when Redis is away (the next call enqueues again)."""
        try:
            return enqueue_scoring(queue, ledger, ctx.project, tasks, label_config=ctx.label_config,
                                   config=config, model_version=ctx.model_version)
        except Exception as exc:  # Redis down: answer from the ledger anyway
            log.error("could not enqueue %d tasks of project %s: %s", len(tasks), ctx.project, exc)
            return []

    @app.get("/health")
    def health():
        if not auth.allows(request):
            return denied()
        return jsonify({"status": "UP", "model_class": "label-audit ensemble", "queue": queue.name})

    @app.post("/setup")
    def setup():
        if not auth.allows(request):
            return denied()
        body = request.get_json(silent=True) or {}
        try:
            project = project_id(body.get("project"))
            ctx = specs.context(project, body.get("schema"), guidelines=fetch_guidelines(project))
        except ValueError as exc:
            return bad_request(str(exc))
        return jsonify({"model_version": ctx.model_version})

    @app.get("/versions")
    def versions():
        if not auth.allows(request):
            return denied()
        raw = request.args.get("project") or (request.get_json(silent=True) or {}).get("project")
        try:
            ctx = specs.context(project_id(raw))
            found = [ctx.model_version]
        except ValueError:
            found = []
        return jsonify({"versions": found})

    @app.post("/predict")
    def predict():
        if not auth.allows(request):
            return denied()
        body = request.get_json(silent=True) or {}
        tasks = body.get("tasks")
        if not isinstance(tasks, list) or not tasks:
            return bad_request("predict needs a non-empty list of tasks")
        try:
            ctx = specs.context(project_id(body.get("project")), body.get("label_config"))
        except ValueError as exc:
            return bad_request(str(exc))
        ids = [str(t.get("id")) for t in tasks if isinstance(t, dict)]
        scored = ledger.results_for(ctx.project, ids, ctx.model_version)
        results: list[Any] = []
        answered = []
        for task in tasks:
            res = scored.get(str(task.get("id"))) if isinstance(task, dict) else None
            pred = prediction_for(res, ctx.spec, ctx.model_version) if res is not None else None
            results.append(pred if pred is not None else [])
            if pred is not None:
                answered.append(str(res.id))
        missing = [t for t in tasks if isinstance(t, dict) and str(t.get("id")) not in scored]
        jobs = enqueue(ctx, missing) if missing else []
        if answered:  # LS stores what /predict returns: the worker must not import these again
            ledger.mark_imported(ctx.project, ctx.model_version, answered)
        return jsonify({"results": results, "model_version": ctx.model_version, "queued_jobs": jobs})

    @app.post("/webhook")
    def webhook():
        body = request.get_json(silent=True) or {}
        action = str(body.get("action", ""))
        if action in UNAUTHENTICATED_ACTIONS:
            return jsonify({"status": "ignored", "action": action})
        if not auth.allows(request):
            return denied()
        if action == "START_TRAINING":
            return jsonify({"status": "ok", "job": None, "note": "the ensemble is zero-shot: nothing to train"})
        project = body.get("project")
        label_config = project.get("label_config") if isinstance(project, dict) else None
        guidelines = project.get("expert_instruction") if isinstance(project, dict) else None
        try:
            ctx = specs.context(project_id(project), label_config, guidelines=guidelines)
        except ValueError as exc:
            return bad_request(str(exc))
        if action == "TASKS_CREATED":
            tasks = [t for t in body.get("tasks") or () if isinstance(t, dict)]
            return jsonify({"status": "queued", "jobs": enqueue(ctx, tasks), "model_version": ctx.model_version})
        if action in CONFIG_ACTIONS:
            return jsonify({"status": "ok", "model_version": ctx.model_version})
        return jsonify({"status": "ignored", "action": action})

    return app
