"""`audit-stats report`: the lead's answer.

It reads the source project through the Label Studio SDK (``--url``/``--token`` default to
``LABEL_STUDIO_URL`` / ``LABEL_STUDIO_API_KEY``) and the ledger (``--db``, default ``DATABASE_URL``
or the local SQLite file). The token is handed to the SDK only; it is never echoed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from backend.api import atomic_write
from stats_cli.commands.source_options import (DB, PROJECT, TOKEN, URL, connect_source, pull_source, source_settings,
                                               task_cache)
from stats_cli.report.snapshot import DEFAULT_REFRESH, snapshot_note
from stats_cli.report.build import build_report
from stats_cli.sources.audit_pull import PullStats
from stats_cli.report.render import FORMATS, render


def report_command(
    project: int = PROJECT,
    url: Optional[str] = URL,
    token: Optional[str] = TOKEN,
    fmt: str = typer.Option("table", "--format", help="table | json | md | html"),
    out: Optional[Path] = typer.Option(None, "--out", help="Write here instead of stdout (HTML: one self-contained file)."),
    db: Optional[str] = DB,
    target_precision: float = typer.Option(0.8, "--target-precision", help="Wanted share of flags that are real errors."),
    models: Optional[Path] = typer.Option(None, "--models", help="Per-item predictions of models to re-rank (Table 4)."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse unchanged tasks from the last pull."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bar on stderr."),
    prices: Optional[Path] = typer.Option(None, "--prices", help="Price file for the judges' cost per 10k labels (see examples/prices.example.yaml)."),
    refresh_with: str = typer.Option(DEFAULT_REFRESH, "--refresh-with", help="How a reader regenerates this report, said at its top while expert answers are still open."),
) -> None:
    """Audit report: errors with bounds, expert agreement, who is right by confidence, the ensemble, crowd."""
    if fmt not in FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(FORMATS)}")
    if not 0.0 < target_precision <= 1.0:
        raise typer.BadParameter("--target-precision must be in (0, 1]")
    # heavy: names of the lazy backend.api facade; loading them at start-up would load the backend they name
    from backend.api import load_prices

    try:
        price_table = load_prices(prices) if prices else None
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"--prices: {exc}") from None
    settings = source_settings(url, token)
    client = connect_source(settings)
    stats = PullStats()
    data = pull_source(project, client=client, db_url=db, cache=task_cache(settings, project, cache), settings=settings,
                      progress=progress and sys.stderr.isatty(), stats=stats,
                      models_file=str(models) if models else None, images=fmt == "html")
    report = build_report(data, target_precision=target_precision, prices=price_table,
                          meta={"tasks_in_project": stats.tasks, "tasks_fetched": stats.fetched,
                                "tasks_from_cache": stats.from_cache, "pull_notes": stats.notes,
                                "snapshot": snapshot_note(data, refresh=refresh_with)})
    text = render(report, fmt=fmt)
    if out is None:
        typer.echo(text)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(out) as handle:  # a failed write keeps the previous report
            handle.write(text)
        typer.echo(f"report written to {out}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``report`` to ``audit-stats``."""
    app.command("report")(report_command)
