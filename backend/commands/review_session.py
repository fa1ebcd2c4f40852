"""What every ``label-audit review`` command shares: its connection options and one session over both instances.

Settings are resolved once here, at the edge (:mod:`backend.config.settings`), and handed down in the session.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import typer
from rich.console import Console

from backend.common.cli_errors import fail as _fail
from backend.config.settings import Settings
from backend.labelstudio.error_lines import client_errors, describe_error

URL = typer.Option(None, "--url", help="Label Studio URL (default LABEL_STUDIO_URL; token from LABEL_STUDIO_API_KEY).")
DB = typer.Option(None, "--db", help="Audit database URL (default DATABASE_URL or ./.label-audit/audit.sqlite).")
PROJECT = typer.Option(..., "--project", help="Source Label Studio project id.")
JSON = typer.Option(False, "--json", help="Print the result as JSON.")
REVIEW_URL = typer.Option(
    None, "--review-url",
    help="Review Label Studio URL (default LABEL_AUDIT_REVIEW_URL; token from LABEL_AUDIT_REVIEW_API_KEY).",
)
EXPERT_INSTANCES = typer.Option(
    None, "--expert-instances",
    help="JSON file (mode 600) mapping each expert email to their own instance's url and token "
         "(default LABEL_AUDIT_EXPERT_INSTANCES; see docs/experts.md).",
)


@dataclass(frozen=True)
class ReviewSession:
    """What every review command works with: both instances' clients, the ledger and the review store."""

    client: Any
    ledger: Any
    store: Any
    review: Any  # ReviewClients: the shared review instance (or ``client`` itself) and each expert's own
    review_url: Optional[str]
    settings: Any  # the run's settings, resolved once here: the flag distance (gold agrees with the
    # workers' flag rule), the image fetch limits, the instances' addresses

    @property
    def delta(self) -> Optional[int]:
        return self.settings.delta


@contextmanager
def session(url: Optional[str], db: Optional[str], review_url: Optional[str],
             experts_file: Optional[str] = None) -> Iterator[ReviewSession]:
    """Open the session; bad input or a Label Studio error inside the block exits 2 with one line."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.labelstudio.client import connect
    from backend.labelstudio.expert_instances import review_clients
    from backend.labelstudio.instances import review_connection, source_url
    from backend.ledger import Ledger
    from backend.review.review_store import ReviewStore
    try:
        settings = Settings.from_env()
        client = connect(source_url(settings, url), settings.label_studio_token)
        ledger = Ledger(db or settings.store_url)
        clients = review_clients(client, settings, url=review_url, experts_path=experts_file,
                                 source_url=source_url(settings, url))
        yield ReviewSession(client, ledger, ReviewStore(db_engine=ledger.db_engine), clients,
                       review_connection(settings, review_url).url, settings)
    except client_errors() as exc:
        _fail(describe_error(exc))


def audited_source(s: "ReviewSession", project: int):
    """The source project as audited, its spec derived with the session's settings (as the workers derived it)."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.review.source import load_audited_source

    return load_audited_source(s.client, s.ledger, project, spec_options=s.settings.spec_options())


def refreshed(project: int, url: Optional[str], db: Optional[str], review_url: Optional[str],
               experts_file: Optional[str] = None):
    """Collect the experts' answers and recompute gold labels: (store, source project, clients), or exit 2."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.review.gold_store import refresh_review

    with session(url, db, review_url, experts_file) as s:
        source = audited_source(s, project)
        refresh_review(s.review, s.store, source, s.ledger.results(source.key), delta=s.delta)
    return s.store, source, s.review


def print_skipped(out: Console, errors: dict[str, str]) -> None:
    """Items left out of a round, each with its reason (the rest went ahead)."""
    for task_id, reason in errors.items():
        out.print(f"  [yellow]skipped[/yellow] task {task_id}: {reason}")


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, default=str))
