"""`label-audit serve`, `label-audit worker`, `label-audit audit`: the Label Studio side of the tool.

``serve`` runs the ML backend (Flask under gunicorn; ``backend.server.wsgi:app`` in docker), ``worker``
runs an rq worker on the scoring queue, ``audit`` scores a whole existing project through the same
queue. All three take their settings from :class:`backend.config.settings.Settings` (the ``LABEL_AUDIT_*``
variables; the ensemble view :meth:`Settings.ensemble`), so backend and workers agree on the model version.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from backend.common import defaults
from backend.common.cli_errors import fail
from backend.common.environment import TOKEN_HELP
from backend.config.settings import Settings
from backend.costs.prices import load_prices
from backend.costs.dry_run import estimate_audit
from backend.costs.cost_tables import estimate_table
from backend.labelstudio.error_lines import client_errors, describe_error
from backend.summaries.score_summary import print_presentation, print_summary
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

log = logging.getLogger(__name__)



def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 only inside a container)."),
    port: int = typer.Option(defaults.BACKEND_PORT, help="Port Label Studio calls."),
    workers: int = typer.Option(1, help="gunicorn worker processes."),
    threads: int = typer.Option(8, help="Threads per worker."),
    insecure_no_auth: bool = typer.Option(False, "--insecure-no-auth", help="Run WITHOUT authentication (local experiments only: anyone who reaches the port can queue work and plant verdicts)."),
) -> None:
    """Run the Label Studio ML backend under gunicorn (/health, /setup, /predict, /webhook, /versions).

    Refuses to start without BASIC_AUTH_USER/BASIC_AUTH_PASS unless --insecure-no-auth is given.
    """
    # heavy: the server and worker load flask, rq, redis and label_studio_sdk's client (~2.7 s); not loaded by label-audit --help
    from backend.server import create_app
    from backend.server.app import check_auth_settings
    from backend.server.gunicorn_run import run
    from backend.worker.ensemble_config import EnsembleConfig

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env(insecure_no_auth=insecure_no_auth or None)
        check_auth_settings(settings)
        EnsembleConfig(settings)
    except ValueError as exc:
        fail(str(exc))
    run(lambda: create_app(settings=settings), host=host, port=port, workers=workers, threads=threads)


def worker(
    queue: list[str] = typer.Option(None, "--queue", "-q", help="Queues to serve (default LABEL_AUDIT_QUEUE)."),
    burst: bool = typer.Option(False, help="Exit when the queues are empty."),
    name: Optional[str] = typer.Option(None, help="Worker name (default: rq's)."),
    fork: bool = typer.Option(False, "--fork", help="Fork a fresh process per job (rq's model: slower, but a "
                              "member whose native code crashes takes only that job down)."),
) -> None:
    """Run an rq worker that scores tasks, re-runs abandoned jobs and imports predictions.

    Jobs run in the worker's own process (modules imported once); see docs/scaling.md to run many.
    """
    # heavy: the server and worker load flask, rq, redis and label_studio_sdk's client (~2.7 s); not loaded by label-audit --help
    from backend.worker.queueing import redis_connection
    from backend.worker.recovery import AuditWorker, ForkingAuditWorker
    from backend.worker.safety import scoring_queue
    from backend.worker.start import use_settings

    settings = Settings.from_env()
    use_settings(settings)  # every job of this worker runs with these, resolved once
    conn = redis_connection(settings.redis_url)
    queues = [scoring_queue(q, conn) for q in (queue or [settings.queue])]
    worker_class = ForkingAuditWorker if fork else AuditWorker
    worker_class(queues, connection=conn, name=name).work(burst=burst, logging_level="INFO")


def _prices(prices_file: Optional[Path]):
    try:
        return load_prices(prices_file) if prices_file else None
    except (OSError, ValueError) as exc:
        fail(str(exc))


def _dry_run(client, project: int, *, config, ledger, prices, json_out: bool) -> None:
    """``audit --dry-run``: what scoring would cost, without enqueueing anything."""
    estimate = estimate_audit(client, project, config=config, ledger=ledger, prices=prices)
    if json_out:
        print(json.dumps({"dry_run": estimate}, indent=2))
    else:
        print_presentation([w["message"] for w in estimate.get("presentation_warnings") or []], Console())
        Console().print(estimate_table(estimate))
        Console().print(f"{estimate['already_scored']} tasks already scored; {estimate['note']}")


def audit(
    project: int = typer.Option(..., "--project", help="Label Studio project id."),
    url: Optional[str] = typer.Option(None, help="Label Studio URL (default LABEL_STUDIO_URL)."),
    token: Optional[str] = typer.Option(None, help=TOKEN_HELP, show_default=False),
    wait: bool = typer.Option(False, help="Wait for the workers, then print the summary."),
    timeout: float = typer.Option(defaults.AUDIT_WAIT, help="Seconds to wait at most with --wait."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    prices_file: Optional[Path] = typer.Option(None, "--prices", help="Price file for the cost columns (see examples/prices.example.yaml)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls, cached calls, tokens, cost and time for the tasks not scored yet; enqueue nothing."),
) -> None:
    """Score every task of an existing project through the queue (same path as the ML backend)."""
    # heavy: the server and worker load flask, rq, redis and label_studio_sdk's client (~2.7 s); not loaded by label-audit --help
    from backend.labelstudio.client import connect
    from backend.ledger import Ledger
    from backend.worker.gate_writeback import gated_summary
    from backend.worker.project_audit import (
        import_missing,
        start_audit,
        wait_for,
    )
    # heavy: the server and worker load flask, rq, redis and label_studio_sdk's client (~2.7 s); not loaded by label-audit --help
    from backend.worker.ensemble_config import EnsembleConfig
    from backend.worker.queueing import redis_connection
    from backend.worker.safety import scoring_queue

    prices = _prices(prices_file)
    try:
        settings = Settings.from_env(label_studio_url=url, label_studio_token=token)
        client = connect(settings.label_studio_url, settings.label_studio_token)
        config = EnsembleConfig(settings)
        ledger = Ledger(settings.store_url)
        if dry_run:
            _dry_run(client, project, config=config, ledger=ledger, prices=prices, json_out=json_out)
            return
        queue = scoring_queue(settings.queue, redis_connection(settings.redis_url))
        err = Console(stderr=True)  # the pre-flight warnings are said before the first job is enqueued
        run = start_audit(client, project, queue=queue, ledger=ledger, config=config,
                          on_presentation=lambda found: print_presentation([w.message for w in found], err))
    except client_errors() as exc:  # one line, never str(ApiError): it carries the response headers
        fail(describe_error(exc))
    err.print(f"project {project}: {len(run.task_ids)} tasks, {len(run.jobs)} jobs on queue "
              f"{queue.name!r}, model_version {run.model_version}")
    _print_controls(err, run.label_config, config)
    if not wait:
        return
    with Progress(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task("scoring", total=len(run.task_ids))
        done = wait_for(ledger, queue, run, timeout=timeout,
                        on_progress=lambda n, total: bar.update(task, completed=n, total=total))
    # heavy: the server and worker load flask, rq, redis and label_studio_sdk's client (~2.7 s); not loaded by label-audit --help
    from backend.worker.importer import CALL_TIMEOUT

    # the last flush may carry most of a large project: Label Studio's import recounts it all
    flush_client = connect(settings.label_studio_url, settings.label_studio_token, timeout=CALL_TIMEOUT)
    imported = import_missing(flush_client, ledger, run, config, queue=queue)
    if imported:
        err.print(f"imported {imported} predictions the workers had not")
    # the health gate, decided once over the project's stored results, rewrites the predictions it changes
    summary = gated_summary(flush_client, ledger, run, config, prices=prices, quorum=settings.quorum())
    if json_out:
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary, Console())
    if not done:
        err.print("[yellow]not every task was scored: see the failed jobs (rq info) and run audit again[/yellow]")
        raise typer.Exit(1)


def _print_controls(err: Console, label_config: str, config) -> None:  # type: ignore[no-untyped-def]
    """The controls the run audits, and each one it skips with the reason."""
    # heavy: the server and worker load flask, rq, redis and label_studio_sdk's client (~2.7 s); not loaded by label-audit --help
    from backend.worker.project_audit import audited_controls

    listed = audited_controls(label_config, config.spec(label_config), control=config.control)
    if len(listed["controls"]) > 1:
        err.print("controls audited: " + ", ".join(f"{c['name']} ({c['family']})" for c in listed["controls"]))
    for skipped in listed["skipped_controls"]:
        err.print(f"control {skipped['name']} (<{skipped['tag']}>) skipped: {skipped['reason']}", markup=False)


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``worker`` and ``audit`` to the ``label-audit`` app."""
    for command in (serve, worker, audit):
        app.command()(command)
