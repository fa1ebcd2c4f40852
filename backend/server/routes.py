"""The ML-backend routes: /health, /setup, /versions, /predict, /webhook.

Each handler is a plain function of the request body and a :class:`Backend` (ledger, queue, project
specs), registered by :func:`backend.server.app.create_app`; authentication has already happened
(:mod:`backend.server.auth`) by the time any of them runs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, abort, jsonify, make_response, request
from rq import Queue

from backend.labelstudio.guidelines import fetch_guidelines, forget_guidelines
from backend.labelstudio.predictions import prediction_for
from backend.config.settings import Settings
from backend.ledger import Ledger
from backend.server.health_check import health_report
from backend.server.projects import ProjectContext, ProjectSpecs, project_id
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.queueing import enqueue_scoring, input_hashes

log = logging.getLogger(__name__)

CONFIG_ACTIONS = frozenset({"PROJECT_CREATED", "PROJECT_UPDATED"})


@dataclass(frozen=True)
class Backend:
    """What the routes share."""

    ledger: Ledger
    queue: Queue
    config: EnsembleConfig
    specs: ProjectSpecs
    settings: Settings  # the app's, resolved once by its factory (Label Studio's URL and token)

    def enqueue(self, ctx: ProjectContext, tasks: list[dict[str, Any]]) -> tuple[list[str], str | None]:
        """The job ids, and why nothing could be queued (None when it was): Redis down never fails the request.

        Nothing is lost when enqueueing fails: the tasks have no ledger result, so the next /predict or
        "Retrieve predictions" for them enqueues them again; the caller reports the reason.
        """
        try:
            return enqueue_scoring(self.queue, self.ledger, ctx.project, tasks, label_config=ctx.label_config,
                                   config=self.config, model_version=ctx.model_version, settings=self.settings), None
        except Exception as exc:  # Redis down: answer from the ledger anyway, and say so
            log.error("could not enqueue %d tasks of project %s: %s", len(tasks), ctx.project, type(exc).__name__)
            return [], f"could not enqueue: {type(exc).__name__} (is Redis up?); the tasks stay unscored"


def _bad_request(message: str, status: int = 400) -> tuple[Response, int]:
    return jsonify({"error": message}), status


def _body() -> dict[str, Any]:
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # a body nested deeper than the parser's stack: a bad request, not a crash
        abort(make_response(jsonify({"error": "request body is nested too deeply"}), 400))
    return body if isinstance(body, dict) else {}


def health(backend: Backend) -> Response:
    return jsonify({**health_report(backend.ledger, backend.queue.connection,
                                  label_studio_url=backend.settings.label_studio_url), "model_class": "label-audit ensemble",
                    "queue": backend.queue.name})


def setup(backend: Backend):
    body = _body()
    try:
        project = project_id(body.get("project"))
        ctx = backend.specs.context(project, body.get("schema"), guidelines=fetch_guidelines(project, settings=backend.settings))
    except ValueError as exc:
        return _bad_request(str(exc))
    return jsonify({"model_version": ctx.label_studio_version})


def versions(backend: Backend) -> Response:
    raw = request.args.get("project") or _body().get("project")
    try:
        found = [backend.specs.context(project_id(raw)).label_studio_version]
    except ValueError:
        found = []
    return jsonify({"versions": found})


def predict(backend: Backend):
    body = _body()
    tasks = body.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        return _bad_request("predict needs a non-empty list of tasks")
    try:
        ctx = backend.specs.context(project_id(body.get("project")), body.get("label_config"))
    except ValueError as exc:
        return _bad_request(str(exc))
    ids = [str(t.get("id")) for t in tasks if isinstance(t, dict)]
    hashes = input_hashes([t for t in tasks if isinstance(t, dict)], backend.config, ctx.label_config,
                          scored=lambda wanted: set(backend.ledger.results_for(ctx.project, wanted, ctx.model_version)),
                          settings=backend.settings)
    scored = backend.ledger.results_for(ctx.project, ids, ctx.model_version, input_hashes=hashes)
    results: list[Any] = []
    answered = []
    for task in tasks:
        res = scored.get(str(task.get("id"))) if isinstance(task, dict) else None
        pred = (prediction_for(res, ctx.spec, ctx.model_version, ls_version=ctx.label_studio_version)
                if res is not None else None)
        results.append(pred if pred is not None else [])
        if pred is not None:
            answered.append(str(res.id))
    missing = [t for t in tasks if isinstance(t, dict) and str(t.get("id")) not in scored]
    jobs, not_queued = backend.enqueue(ctx, missing) if missing else ([], None)
    if answered:  # LS stores what /predict returns: the worker must not import these again
        _mark_imported(backend.ledger, ctx, answered)
    answer = {"results": results, "model_version": ctx.label_studio_version, "queued_jobs": jobs}
    if not_queued:
        answer.update({"queue_status": "not_queued", "queue_error": not_queued})
    return jsonify(answer)


def _mark_imported(ledger: Ledger, ctx: ProjectContext, task_ids: list[str]) -> None:
    """Bookkeeping off the answer: a read-only or failing ledger must not turn a served answer into a 500.

    If the mark is lost, a worker may import the same prediction again later; Label Studio then holds
    two identical predictions of one model version (harmless for its score), never a wrong one.
    """
    try:
        ledger.mark_imported(ctx.project, ctx.model_version, task_ids)
    except Exception as exc:
        log.warning("project %s: could not mark %d answers as imported (%s)", ctx.project, len(task_ids),
                    type(exc).__name__)


def webhook(backend: Backend):
    body = _body()
    action = str(body.get("action", ""))
    if action == "START_TRAINING":
        return jsonify({"status": "ok", "job": None, "note": "the ensemble is zero-shot: nothing to train"})
    if action != "TASKS_CREATED" and action not in CONFIG_ACTIONS:
        return jsonify({"status": "ignored", "action": action})
    project = body.get("project")
    label_config = project.get("label_config") if isinstance(project, dict) else None
    guidelines = project.get("expert_instruction") if isinstance(project, dict) else None
    try:
        ctx = backend.specs.context(project_id(project), label_config, guidelines=guidelines)
    except ValueError as exc:
        return _bad_request(str(exc))
    if action == "TASKS_CREATED":
        tasks = [t for t in body.get("tasks") or () if isinstance(t, dict)]
        jobs, not_queued = backend.enqueue(ctx, tasks)
        if not_queued:  # 503: Label Studio logs it; the tasks are enqueued by the next /predict for them
            return jsonify({"status": "not_queued", "reason": not_queued, "jobs": [],
                            "model_version": ctx.label_studio_version}), 503
        return jsonify({"status": "queued", "jobs": jobs, "model_version": ctx.label_studio_version})
    forget_guidelines(ctx.project)  # the payload carried the project's current guidelines
    return jsonify({"status": "ok", "model_version": ctx.label_studio_version})


ROUTES = (
    ("/health", "GET", health),
    ("/setup", "POST", setup),
    ("/versions", "GET", versions),
    ("/predict", "POST", predict),
    ("/webhook", "POST", webhook),
)


def register_routes(app: Flask, backend: Backend) -> None:
    """Bind every route of :data:`ROUTES` to ``backend``."""
    for path, method, handler in ROUTES:
        app.add_url_rule(path, handler.__name__, _bound(handler, backend), methods=[method])


def _bound(handler, backend: Backend):
    def view():
        return handler(backend)

    view.__name__ = handler.__name__
    return view
