"""The Label Studio ML backend (Flask): /health, /setup, /predict, /webhook, /versions.

``/predict`` never calls an LLM (LS gives up after ``ML_TIMEOUT_PREDICT``, 100 s): tasks already in
the ledger get their ensemble-level prediction at once; the others are enqueued for the RQ workers,
which bulk-import their predictions when done.

What LS 1.23.2 does with the slot of a task that is not scored yet (measured in
``tests/backend/server/test_ls_unscored_shapes.py``): an empty list ``[]`` stores nothing for that task
and keeps the other tasks' predictions — the answer used here; ``{}`` without ``result`` is skipped with
an error in LS's log; ``{"result": []}`` stores an empty prediction (it would show a 0 score and stop
LS from asking again for this model version); ``{"results": []}`` is rejected for the whole batch. (From
LS's source: a list shorter than the tasks sent makes LS drop the batch, so every task gets a slot.)
"""

from __future__ import annotations

import importlib
import logging

from flask import Flask
from rq import Queue

from backend.ledger import Ledger
from backend.server import auth as auth_check
from backend.server.auth import BasicAuth
from backend.server.projects import ProjectSpecs
from backend.server.routes import Backend, register_routes
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.queueing import redis_connection
from backend.worker.safety import scoring_queue

log = logging.getLogger(__name__)


INSECURE_WARNING = (
    "label-audit backend running WITHOUT authentication (--insecure-no-auth): anyone who can reach this "
    "port can queue scoring work and plant verdicts. Use this for local experiments only."
)
NO_CREDENTIALS = (
    "the backend needs credentials: set BASIC_AUTH_USER and BASIC_AUTH_PASS (and give the same pair to Label "
    "Studio when connecting the model), or pass --insecure-no-auth (LABEL_AUDIT_INSECURE_NO_AUTH=1 for the "
    "WSGI app) for a local experiment"
)


def check_auth_settings(settings: Settings, auth: BasicAuth | None = None) -> None:
    """Refuse (ValueError) a backend without credentials unless the insecure mode was asked for; warn then."""
    enabled = auth.enabled if auth is not None else settings.auth_user is not None
    if enabled:
        return
    if not settings.insecure_no_auth:
        raise ValueError(NO_CREDENTIALS)
    log.warning(INSECURE_WARNING)


def create_app(
    *,
    settings: Settings | None = None,
    ledger: Ledger | None = None,
    queue: Queue | None = None,
    config: EnsembleConfig | None = None,
    auth: BasicAuth | None = None,
    insecure_no_auth: bool = False,
) -> Flask:
    """Build the backend app; every part not given comes from ``settings`` (default: the environment).

    Raises ValueError when no credentials are configured, unless ``insecure_no_auth`` (or the settings'
    ``LABEL_AUDIT_INSECURE_NO_AUTH``) says so.
    """
    settings = settings or Settings.from_env()
    if insecure_no_auth:
        settings = settings.with_options(insecure_no_auth=True)
    check_auth_settings(settings, auth)
    app = Flask("label-audit-backend")
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    ledger = ledger or Ledger(settings.store_url)
    config = config or EnsembleConfig(settings)
    auth = auth or BasicAuth.from_settings(settings)
    queue = queue if queue is not None else scoring_queue(settings.queue, redis_connection(settings.redis_url))
    auth_check.install(app, auth)
    # Label Studio gives /setup 3 s and /setup reads the project's guidelines through the SDK: import it
    # now (~2 s on a busy machine), not inside the first /setup.
    importlib.import_module("backend.labelstudio.client")
    register_routes(app, Backend(ledger=ledger, queue=queue, config=config, specs=ProjectSpecs(ledger, config),
                                 settings=settings))
    return app
