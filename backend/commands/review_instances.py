"""`label-audit review instances start|stop|status`: one local Label Studio per expert.

For a review run on this machine outside the demo (:mod:`backend.demo.expert_servers`). ``start``
prints each expert's URL and login (a generated password, shown once when the account is made, kept
in the 0600 secrets file) and the ``export LABEL_AUDIT_EXPERT_INSTANCES=...`` line ``review push`` needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from backend.commands.local_paths import local_home, local_label_studio_bin
from backend.common.cli_errors import fail as _fail
from backend.labelstudio.error_lines import client_errors, describe_error

instances_app = typer.Typer(help="One local Label Studio per expert (sign-up closed): start, stop, status.",
                            no_args_is_help=True)
HOME = typer.Option(None, "--home", help="Parent folder (default $LABEL_AUDIT_HOME or ./.label-audit).")


@instances_app.command("start")
def start_cmd(
    experts: str = typer.Option(..., "--experts", help="Expert emails, comma-separated: one instance each."),
    port: int = typer.Option(8081, "--port", min=1, max=65535,
                             help="First expert's port (the next ones follow, or the next free one)."),
    home: Optional[Path] = HOME,
) -> None:
    """Start (or find running) each expert's Label Studio, sign the expert up, write the expert map."""
    # heavy: loads label_studio_sdk's client, ~1.1 s at import, not loaded by label-audit --help
    from backend.labelstudio.expert_instances import EXPERT_INSTANCES_ENV
    from backend.demo.expert_servers import ExpertServers

    out = Console(soft_wrap=True)  # URLs and logins stay on one line
    servers = ExpertServers(local_home(home), label_studio_bin=local_label_studio_bin())
    try:
        started = servers.start(experts.split(","), first_port=port, say=out.print)
    except client_errors() as exc:
        _fail(f"Label Studio: {describe_error(exc)}")
    except (RuntimeError, ValueError, OSError) as exc:
        _fail(str(exc))
    for s in started:
        login = (f"password {s.password} (shown once: hand it over privately)" if s.password
                 else f"password in {servers.secrets_path}")
        out.print(f"  {s.expert}: {s.url}/   login {s.expert}, {login}")
    out.print(f"Sign-up is closed on every instance. The lead's admin on each: {servers.secrets_path} (0600).")
    out.print(f"export {EXPERT_INSTANCES_ENV}={servers.map_path}")
    out.print("Stop them: label-audit review instances stop" + (f" --home {home}" if home else ""))


@instances_app.command("status")
def status_cmd(home: Optional[Path] = HOME) -> None:
    """Each expert's instance: URL, running or not, sign-up closed."""
    # heavy: loads label_studio_sdk's client, ~1.1 s at import, not loaded by label-audit --help
    from backend.demo.expert_servers import ExpertServers

    out = Console(soft_wrap=True)
    known = ExpertServers(local_home(home)).status()
    if not known:
        out.print("no expert instances here (label-audit review instances start --experts ...)")
        return
    for s in known:
        signup = {True: "sign-up closed", False: "[red]sign-up OPEN[/red]", None: ""}[s.signup_closed]
        out.print(f"  {s.expert}: {s.url}/   {'running' if s.running else 'stopped'}"
                  + (f", {signup}" if signup else ""))


@instances_app.command("stop")
def stop_cmd(home: Optional[Path] = HOME) -> None:
    """Stop every expert instance started from this folder."""
    # heavy: loads label_studio_sdk's client, ~1.1 s at import, not loaded by label-audit --help
    from backend.demo.expert_servers import ExpertServers

    stopped = ExpertServers(local_home(home)).stop()
    typer.echo("stopped: " + (", ".join(stopped) if stopped else "nothing was running"))
