"""Options and helpers of the commands that read a source project: `audit-stats report` and `sync-gold`.

Both read the source project through the Label Studio SDK (``--url``/``--token`` default to
``LABEL_STUDIO_URL`` / ``LABEL_STUDIO_API_KEY``) and the ledger (``--db``, default ``DATABASE_URL``
or the local SQLite file). The token is handed to the SDK only; it is never echoed.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

import typer

from backend.api import fail as _fail
from backend.api import TOKEN_HELP
from stats_cli.sources.audit_pull import pull_audit
from stats_cli.sources.task_cache import TaskCache, cache_dir

PROJECT = typer.Option(..., "--project", help="Source project id in Label Studio.")
URL = typer.Option(None, "--url", help="Label Studio URL (default: $LABEL_STUDIO_URL).")
TOKEN = typer.Option(None, "--token", show_default=False, help=TOKEN_HELP)
DB = typer.Option(None, "--db", help="Ledger / review store URL (default: $DATABASE_URL or .label-audit/audit.sqlite).")


def source_settings(url: Optional[str], token: Optional[str]):
    """The command's settings (:class:`backend.config.settings.Settings`), resolved once: the environment with
    ``--url`` / ``--token`` on top (a bad value is a usage error, never echoing a token)."""
    # heavy: names of the lazy backend.api facade; loading them at start-up would load the backend they name
    from backend.api import Settings

    try:
        return Settings.from_env(label_studio_url=url, label_studio_token=token)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def connect_source(settings):
    """A Label Studio client for the source project (a bad address or missing token is a usage error)."""
    # heavy: names of the lazy backend.api facade; loading them at start-up would load the backend they name
    from backend.api import connect

    try:
        return connect(settings.label_studio_url, settings.label_studio_token)
    except ValueError as exc:  # the message never contains the token
        raise typer.BadParameter(str(exc)) from None


@contextlib.contextmanager
def label_studio_errors(project: int) -> Iterator[None]:
    """Turn Label Studio failures into one line (status and detail only: headers carry session cookies)."""
    # heavy: names of the lazy backend.api facade; loading them at start-up would load the backend they name
    from backend.api import client_errors, describe_error

    try:
        yield
    except client_errors() as exc:
        _fail(f"project {project}: {describe_error(exc)}")


def pull_source(project: int, **kwargs):
    """The audit of ``project`` (:func:`stats_cli.sources.audit_pull.pull_audit`), Label Studio failures as one line."""
    with label_studio_errors(project):
        return pull_audit(project, **kwargs)


def task_cache(settings, project: int, enabled: bool):
    """The on-disk cache of the project's pulled tasks under the settings' home (None when disabled or no
    server is known)."""
    server = settings.label_studio_url or ""
    return TaskCache(server, project, root=cache_dir(settings.home)) if enabled and server else None
