"""`label-audit serve`, `label-audit worker`, `label-audit audit`: the Label Studio side of the tool.

``serve`` runs the ML backend (Flask; gunicorn ``backend.server.wsgi:app`` in docker), ``worker``
runs an rq worker on the scoring queue, ``audit`` scores a whole existing project through the same
queue. All three read the ensemble from ``LABEL_AUDIT_*`` variables (see
:class:`backend.worker.config.EnsembleConfig`), so backend and workers agree on the model version.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

log = logging.getLogger(__name__)


def _fail(message: str) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``worker`` and ``audit`` to the ``label-audit`` app."""

    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 only inside a container)."),
        port: int = typer.Option(9090, help="Port Label Studio calls."),
    ) -> None:
        """Run the Label Studio ML backend (/health, /setup, /predict, /webhook, /versions)."""
        from backend.server import create_app

        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        try:
            application = create_app()
        except ValueError as exc:
            _fail(str(exc))
        application.run(host=host, port=port, threaded=True, use_reloader=False)

    @app.command()
    def worker(
        queue: list[str] = typer.Option(None, "--queue", "-q", help="Queues to serve (default LABEL_AUDIT_QUEUE)."),
        burst: bool = typer.Option(False, help="Exit when the queues are empty."),
        name: Optional[str] = typer.Option(None, help="Worker name (default: rq's)."),
    ) -> None:
        """Run an rq worker that scores tasks, re-runs abandoned jobs and imports predictions."""
        from rq import Queue

        from backend.worker.queueing import queue_name, redis_connection
        from backend.worker.recovery import AuditWorker

        conn = redis_connection()
        queues = [Queue(q, connection=conn) for q in (queue or [queue_name()])]
        AuditWorker(queues, connection=conn, name=name).work(burst=burst, logging_level="INFO")

    @app.command()
    def audit(
        project: int = typer.Option(..., "--project", help="Label Studio project id."),
        url: Optional[str] = typer.Option(None, help="Label Studio URL (default LABEL_STUDIO_URL)."),
        token: Optional[str] = typer.Option(None, help="API token (default LABEL_STUDIO_API_KEY).", show_default=False),
        wait: bool = typer.Option(False, help="Wait for the workers, then print the summary."),
        timeout: float = typer.Option(3600.0, help="Seconds to wait at most with --wait."),
        json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
        prices_file: Optional[Path] = typer.Option(None, "--prices", help="Price file for the cost columns (see examples/prices.example.yaml)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls, cached calls, tokens, cost and time for the tasks not scored yet; enqueue nothing."),
    ) -> None:
        """Score every task of an existing project through the queue (same path as the ML backend)."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
        from rq import Queue

        from backend.labelstudio.client import connect
        from backend.labelstudio.errors import client_errors, describe_error
        from backend.ledger import Ledger
        from backend.summary import print_summary
        from backend.worker.audit import (
            import_missing,
            start_audit,
            summary_from_ledger,
            wait_for,
        )
        from backend.worker.config import EnsembleConfig
        from backend.worker.queueing import queue_name, redis_connection

        from backend.costs.prices import load_prices

        try:
            prices = load_prices(prices_file) if prices_file else None
        except (OSError, ValueError) as exc:
            _fail(str(exc))
        try:
            client = connect(url, token or os.environ.get("LABEL_STUDIO_API_KEY"))
            config = EnsembleConfig.from_env()
            ledger = Ledger()
            if dry_run:
                from backend.costs.estimate import estimate_audit
                from backend.costs.report import estimate_table

                estimate = estimate_audit(client, project, config=config, ledger=ledger, prices=prices)
                if json_out:
                    print(json.dumps({"dry_run": estimate}, indent=2))
                else:
                    Console().print(estimate_table(estimate))
                    Console().print(f"{estimate['already_scored']} tasks already scored; {estimate['note']}")
                return
            queue = Queue(queue_name(), connection=redis_connection())
            run = start_audit(client, project, queue=queue, ledger=ledger, config=config)
        except client_errors() as exc:  # one line, never str(ApiError): it carries the response headers
            _fail(describe_error(exc))
        err = Console(stderr=True)
        err.print(f"project {project}: {len(run.task_ids)} tasks, {len(run.jobs)} jobs on queue "
                  f"{queue.name!r}, model_version {run.model_version}")
        if not wait:
            return
        with Progress(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, transient=True) as bar:
            task = bar.add_task("scoring", total=len(run.task_ids))
            done = wait_for(ledger, queue, run, timeout=timeout,
                            on_progress=lambda n, total: bar.update(task, completed=n, total=total))
        imported = import_missing(client, ledger, run, config)
        if imported:
            err.print(f"imported {imported} predictions the workers had not")
        summary = summary_from_ledger(ledger, run, config, prices=prices)
        if json_out:
            print(json.dumps(summary, indent=2))
        else:
            print_summary(summary, Console())
        if not done:
            err.print("[yellow]not every task was scored: see the failed jobs (rq info) and run audit again[/yellow]")
            raise typer.Exit(1)
