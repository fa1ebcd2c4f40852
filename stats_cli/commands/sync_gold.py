"""`audit-stats sync-gold`: the corrected labels, to a file and/or back into the source project.

Reads the audit the way the report does (:mod:`stats_cli.sources.audit_pull`) and writes through
:mod:`stats_cli.sources.gold_export`; nothing of the report package is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from stats_cli.commands.source_options import (
    DB,
    PROJECT,
    TOKEN,
    URL,
    connect_source,
    source_settings,
    label_studio_errors,
    pull_source,
    task_cache,
)
from stats_cli.sources.audit_pull import pull_tasks
from stats_cli.sources.task_cache import TaskCache


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
    conll: Optional[Path] = typer.Option(None, "--conll", help="Span (NER) tasks: also write the gold spans as CoNLL/IOB2."),
) -> None:
    """Write gold labels to a file and/or back into the source project (idempotent)."""
    # heavy: the gold export and the lazy backend.api names load the review stores and Label Studio's client; not loaded by audit-stats --help
    from stats_cli.sources.gold_export import (
        MODES,
        gold_rows,
        sync_to_labelstudio,
        write_gold_file,
    )

    if mode not in MODES:
        raise typer.BadParameter(f"--mode must be one of {', '.join(MODES)}")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise typer.BadParameter("--threshold must be in [0, 1]")
    if out is None and not to_labelstudio and conll is None:
        raise typer.BadParameter("nothing to do: give --out FILE and/or --to-labelstudio")
    if out is not None and out.suffix.lower() not in (".jsonl", ".ndjson", ".json", ".csv"):
        raise typer.BadParameter("--out must end in .jsonl or .csv")
    settings = source_settings(url, token)
    client = connect_source(settings)
    cache = task_cache(settings, project, True)
    data = pull_source(project, client=client, db_url=db, cache=cache, settings=settings)
    _print_projects(client, project, db, settings)
    rows = gold_rows(data, mode=mode, threshold=threshold)  # type: ignore[arg-type]
    actions: dict[str, int] = {}
    for row in rows:
        actions[row.action] = actions.get(row.action, 0) + 1
    if out is not None:
        written = write_gold_file(rows, out, spec=data.spec)
        typer.echo(f"{written} rows written to {out} ({', '.join(f'{k}: {v}' for k, v in sorted(actions.items()))})")
    if conll is not None:
        if not data.spec.task_family.span_valued:
            raise typer.BadParameter("--conll writes span (NER) tasks only")
        # heavy: the gold export and the lazy backend.api names load the review stores and Label Studio's client; not loaded by audit-stats --help
        from backend.api import conll_from_rows

        with label_studio_errors(project):
            texts = {str(t["id"]): t["data"].get(data.spec.fields["text"]) for t in map(_task_dict, pull_tasks(
                client, project, cache=cache))}
        widened = conll_from_rows([(r.id, r.label) for r in rows], texts, conll)
        typer.echo(f"CoNLL/IOB2 written to {conll}" + (f" ({widened} spans widened to whole tokens)" if widened else ""))
    if to_labelstudio:
        with label_studio_errors(project):
            tasks = pull_tasks(client, project, cache=cache)
            config = client.projects.get(id=project).label_config
            counts = sync_to_labelstudio(client, data, tasks, label_config=config, include_agreed=include_agreed)
        typer.echo(f"gold annotations in project {project}: {counts.created} created, {counts.updated} updated, "
                   f"{counts.unchanged} unchanged")
    if isinstance(cache, TaskCache):
        cache.close()


def _print_projects(client, project: int, db: Optional[str], settings) -> None:
    """The source project's URL and every review project the gold labels rest on, each on its instance."""
    # heavy: the gold export and the lazy backend.api names load the review stores and Label Studio's client; not loaded by audit-stats --help
    from backend.api import Ledger, ReviewStore, project_links, review_clients

    base = str(client._client_wrapper.get_base_url()).rstrip("/")
    typer.echo(f"source project {project}: {base}/projects/{int(project)}/data")
    store = ReviewStore(db_engine=Ledger(db or settings.store_url).db_engine)
    for who, where in project_links(store, str(project), review_clients(client, settings)):
        typer.echo(f"  experts' answers read from {who}: {where}")


def register(app: typer.Typer) -> None:
    """Add ``sync-gold`` to ``audit-stats``."""
    app.command("sync-gold")(sync_gold_command)


def _task_dict(task) -> dict:
    # heavy: the gold export and the lazy backend.api names load the review stores and Label Studio's client; not loaded by audit-stats --help
    from backend.api import as_dict

    return as_dict(task)
