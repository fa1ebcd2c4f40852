"""`audit-stats report` and `audit-stats sync-gold`: the lead's answer, and the corrected labels.

Both read the source project through the Label Studio SDK (``--url``/``--token`` default to
``LABEL_STUDIO_URL`` / ``LABEL_STUDIO_API_KEY``) and the ledger (``--db``, default ``DATABASE_URL``
or the local SQLite file). The token is handed to the SDK only; it is never echoed.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Iterator, Optional

import typer

from backend.atomic_write import atomic_write
from backend.commands.context import TOKEN_HELP
from backend.cli_errors import fail as _fail

PROJECT = typer.Option(..., "--project", help="Source project id in Label Studio.")
URL = typer.Option(None, "--url", help="Label Studio URL (default: $LABEL_STUDIO_URL).")
TOKEN = typer.Option(None, "--token", show_default=False, help=TOKEN_HELP)
DB = typer.Option(None, "--db", help="Ledger / review store URL (default: $DATABASE_URL or .label-audit/audit.sqlite).")


def _connect(url: Optional[str], token: Optional[str]):
    from backend.labelstudio.client import connect

    try:
        return connect(url, token)
    except ValueError as exc:  # the message never contains the token
        raise typer.BadParameter(str(exc)) from None


@contextlib.contextmanager
def _label_studio_errors(project: int) -> Iterator[None]:
    """Turn Label Studio failures into one line (status and detail only: headers carry session cookies)."""
    from backend.labelstudio.errors import client_errors, describe_error

    try:
        yield
    except client_errors() as exc:
        _fail(f"project {project}: {describe_error(exc)}")


def _pull(project: int, **kwargs):
    from stats_cli.report.pull import pull_audit

    with _label_studio_errors(project):
        return pull_audit(project, **kwargs)


def _cache(url: Optional[str], project: int, enabled: bool):
    from stats_cli.report.cache import TaskCache

    from backend.labelstudio.instances import source_url_from_env

    server = source_url_from_env(url) or ""
    return TaskCache(server, project) if enabled and server else None


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
) -> None:
    """Audit report: errors with bounds, expert agreement, who is right by confidence, the ensemble, crowd."""
    from stats_cli.report.build import build_report
    from stats_cli.report.pull import PullStats
    from stats_cli.report.render import FORMATS, render

    if fmt not in FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(FORMATS)}")
    if not 0.0 < target_precision <= 1.0:
        raise typer.BadParameter("--target-precision must be in (0, 1]")
    from backend.costs.prices import load_prices

    try:
        price_table = load_prices(prices) if prices else None
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"--prices: {exc}") from None
    client = _connect(url, token)
    stats = PullStats()
    data = _pull(project, client=client, db_url=db, cache=_cache(url, project, cache),
                      progress=progress and sys.stderr.isatty(), stats=stats,
                      models_file=str(models) if models else None)
    report = build_report(data, target_precision=target_precision, prices=price_table,
                          meta={"tasks_in_project": stats.tasks, "tasks_fetched": stats.fetched,
                                "tasks_from_cache": stats.from_cache, "pull_notes": stats.notes})
    text = render(report, fmt=fmt)
    if out is None:
        typer.echo(text)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(out) as handle:  # a failed write keeps the previous report
            handle.write(text)
        typer.echo(f"report written to {out}", err=True)


def sync_gold_command(
    project: int = PROJECT,
    url: Optional[str] = URL,
    token: Optional[str] = TOKEN,
    db: Optional[str] = DB,
    out: Optional[Path] = typer.Option(None, "--out", help="Gold file to write (.jsonl or .csv)."),
    mode: str = typer.Option("correct", "--mode", help="correct | flip | filter (Nahum §7.1 training sets)."),
    threshold: Optional[float] = typer.Option(None, "--threshold", help="Confidence at/above which flip/filter act."),
    to_labelstudio: bool = typer.Option(False, "--to-labelstudio", help="Write gold as annotations by the gold user (marked as ours; the originals keep their ground-truth flags)."),
    include_agreed: bool = typer.Option(False, "--include-agreed", help="Also write items the ensemble agreed with."),
) -> None:
    """Write gold labels to a file and/or back into the source project (idempotent)."""
    from stats_cli.report.cache import TaskCache
    from stats_cli.report.pull import pull_tasks
    from stats_cli.sync_gold import (
        MODES,
        gold_rows,
        sync_to_labelstudio,
        write_gold_file,
    )

    if mode not in MODES:
        raise typer.BadParameter(f"--mode must be one of {', '.join(MODES)}")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise typer.BadParameter("--threshold must be in [0, 1]")
    if out is None and not to_labelstudio:
        raise typer.BadParameter("nothing to do: give --out FILE and/or --to-labelstudio")
    if out is not None and out.suffix.lower() not in (".jsonl", ".ndjson", ".json", ".csv"):
        raise typer.BadParameter("--out must end in .jsonl or .csv")
    client = _connect(url, token)
    cache = _cache(url, project, True)
    data = _pull(project, client=client, db_url=db, cache=cache)
    rows = gold_rows(data, mode=mode, threshold=threshold)  # type: ignore[arg-type]
    actions: dict[str, int] = {}
    for row in rows:
        actions[row.action] = actions.get(row.action, 0) + 1
    if out is not None:
        written = write_gold_file(rows, out)
        typer.echo(f"{written} rows written to {out} ({', '.join(f'{k}: {v}' for k, v in sorted(actions.items()))})")
    if to_labelstudio:
        with _label_studio_errors(project):
            tasks = pull_tasks(client, project, cache=cache)
            config = client.projects.get(id=project).label_config
            counts = sync_to_labelstudio(client, data, tasks, label_config=config, include_agreed=include_agreed)
        typer.echo(f"gold annotations in project {project}: {counts.created} created, {counts.updated} updated, "
                   f"{counts.unchanged} unchanged")
    if isinstance(cache, TaskCache):
        cache.close()


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``sync-gold`` to ``audit-stats``."""
    app.command("report")(report_command)
    app.command("sync-gold")(sync_gold_command)
