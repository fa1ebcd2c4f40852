"""`label-audit demo --labelstudio` and `label-audit demo --stop`: the options, the run, what to open.

The options are defined here and added to the ``demo`` command of :mod:`backend.commands.demo`, so the
file demo (plain ``label-audit demo``) and the Label Studio demo stay one command.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from backend.labelstudio.error_lines import client_errors, describe_error
from backend.demo.judge import judge_member, judge_note, left_out
from backend.config.settings import Settings
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.members import entry_templates, exclude_members, parse_member_arg
from backend.task.option_orders import orders_of

from backend.commands.local_paths import local_home, local_label_studio_bin
from backend.common import defaults

LABELSTUDIO = typer.Option(False, "--labelstudio", help="Run the whole loop in Label Studio: services, sample "
                           "project, scoring through the queue, blind review, report.")
STOP = typer.Option(False, "--stop", help="Stop every process the Label Studio demo started.")
ENV = typer.Option(False, "--env", help="Print export lines that point every other command at the running demo "
                   "(its Label Studio, token, ledger, Redis, queue, expert map): eval \"$(label-audit demo --env)\".")
HOME = typer.Option(None, "--home", help="Demo folder parent (default $LABEL_AUDIT_HOME or ./.label-audit).")
LS_PORT = typer.Option(None, "--ls-port", help="Label Studio port (default 8080, or the next free one).")
REVIEW_PORT = typer.Option(None, "--review-port", help="First expert's review Label Studio port (default 8081; "
                           "the next expert's follows it, or the next free one).")
BACKEND_PORT = typer.Option(None, "--backend-port", help=f"ML backend port (default {defaults.BACKEND_PORT}, or the next free one).")
REDIS_PORT = typer.Option(None, "--redis-port", help="Redis port (default 6379; started when none answers).")


def main(*, stop: bool, home: Optional[Path], ports: dict[str, Optional[int]], warning: str,
         judge: Optional[str] = None, models_dir: Optional[Path] = None) -> None:
    """Run (or stop) the Label Studio demo; exit 2 with one readable line when a step fails.

    ``warning`` is the embedded judge's caveat, printed before the run (the file demo prints the same);
    with ``judge`` (a named local judge) the demo's first step installs or checks it (in ``models_dir``), and the
    note says its cost instead. A judge that cannot be installed is replaced by the embedded one, said loudly.
    """
    # heavy via backend.demo (label_studio_sdk's client ~1.1 s, rq/redis); not loaded by label-audit --help
    from backend.demo.home import DemoHome
    from backend.demo.run import run_demo, stop_demo
    console = Console(soft_wrap=True)  # URLs and logins stay on one line, whatever the terminal width
    demo_home = DemoHome.at(local_home(home), label_studio_bin=local_label_studio_bin())
    if stop:
        stop_demo(home=demo_home, say=console.print)
        return
    started = time.monotonic()
    fallback = None
    if judge:
        judge, fallback = _install_judge(judge, models_dir, console)
    if fallback:
        console.print(f"[bold red]No real judge:[/bold red] {fallback}.\n[bold red]This demo runs with the embedded "
                      "judge instead[/bold red] (SmolLM2-135M): its flags are noise, not label errors. Free the space "
                      "or reach the package index, then run the demo again.")
    console.print(f"[bold yellow]Note:[/bold yellow] {_judge_note(judge) if judge else warning}\n")
    try:
        result = run_demo(home=demo_home, ports=ports, console=console, judge=judge)
        result.fallback = fallback
    except client_errors() as exc:
        _fail(f"Label Studio: {describe_error(exc)}", demo_home)
    except (RuntimeError, ValueError, OSError) as exc:
        _fail(str(exc), demo_home)
    print_what_to_open(result, console, seconds=time.monotonic() - started, home=home)


def _install_judge(judge: str, models_dir: Optional[Path], console: Console) -> tuple[Optional[str], Optional[str]]:
    """The demo's first step: the judge installed (progress bar over its parts) or checked; else why not."""
    # heavy via backend.demo (label_studio_sdk's client ~1.1 s, rq/redis); not loaded by label-audit --help
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from backend.demo.judge import ensure_judge

    with Progress(TextColumn(f"installing local:{judge}, parts"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("install", total=None)
        return ensure_judge(judge, folder=models_dir, say=lambda text: console.print(f"[bold cyan]•[/bold cyan] {text}"),
                            on_part=lambda done, total: bar.update(task, completed=done, total=total))


def _judge_note(judge: str) -> str:
    """The named judge's cost on the sample project: its items x the prompts the worker asks of each."""
    # heavy via backend.demo (label_studio_sdk's client ~1.1 s, rq/redis); not loaded by label-audit --help
    from backend.demo import project
    settings = Settings.from_env()  # the worker's, less the members the demo sets (it passes this environment on)
    spec = spec_from_label_config(project.LABEL_CONFIG, **settings.spec_options())
    (entry,) = exclude_members([parse_member_arg(judge_member(judge))], left_out(judge).split(","))
    prompts = len(entry_templates(entry, spec, prompts_root=settings.prompts_dir))
    return judge_note(judge, items=len(project.sample_tasks()), prompts=prompts, orders=orders_of(spec))


def _fail(message: str, demo_home) -> None:
    err = Console(stderr=True)
    err.print(f"[red]error:[/red] {message}")
    err.print(f"Logs: {demo_home.root / 'logs'}; stop what started: label-audit demo --stop")
    raise typer.Exit(2)


def print_what_to_open(result: Any, console: Console, *, seconds: float, home: Optional[Path]) -> None:
    """The URLs, logins, report and the stop command: the one place passwords are shown."""
    # heavy via backend.demo (label_studio_sdk's client ~1.1 s, rq/redis); not loaded by label-audit --help
    from backend.demo.home import ADMIN, load_secrets

    from backend.demo.env import command
    from backend.scoring.planted_ranking import ranking_sentence

    keys = load_secrets(result.home)
    home_arg = f" --home {shlex.quote(str(Path(home).resolve()))}" if home else ""  # any shell, any folder
    summary = result.summary
    console.print(f"\n[bold green]Done in {seconds:.0f} s.[/bold green] Open:")
    console.print(f"  Label Studio       {result.ls_url}   login {ADMIN} / {keys['source']['password']}")
    console.print(f"  Source project     {result.ls_url}/projects/{result.project_id}/data   "
                  f"({summary.get('items', 0)} items, {summary.get('flagged', 0)} flagged): tabs \"Default\" (every "
                  "item) and \"Suspected label errors\", highest confidence first")
    if result.planted:  # what the sample's known errors say about this run (the report's section gives each)
        console.print(f"  Planted errors     {ranking_sentence(result.planted).removeprefix('Planted errors: ')}")
    console.print("  Review             one Label Studio per expert (their only account; no source data, "
                  "no other expert; sign-up closed)")
    for email, project_id in result.review_projects.items():
        console.print(f"  Expert project     {result.review_urls[email]}/projects/{project_id}/data   "
                      f"login {email} / {keys['experts'][email]}")
    if not result.review_projects:
        console.print("  Expert projects    none: nothing was flagged, so there is nothing to review")
    progress = result.progress
    if progress.reconcile_url:
        console.print(f"  Reconciliation     {progress.reconcile_url}   (round 2: both experts' answers shown, "
                      "on a shared instance of its own)")
        for email, password in progress.reconcile_logins.items():
            console.print(f"                     login {email} / {password}")
    if result.confident:
        found = next((r for r in result.confident["planted"] if r["who"].startswith("ensemble")), None)
        console.print(f"  Ticket project     {result.ls_url}/projects/{result.confident['project']}/data   "
                      "(confident learning: " + ("no result" if found is None else
                      f"{found['planted_found']} of {found['planted']} planted errors found, "
                      f"{found['flagged']} flagged") + ")")
    console.print(f"  Report             {result.home.report}")
    project = result.project_id
    console.print(f"  Other commands     eval \"$({command()} demo --env{home_arg})\"   puts label-audit and "
                  f"audit-stats on the PATH and points them at the demo: then label-audit review status --project "
                  f"{project}, audit-stats report --project {project} (every command: docs/commands.md)")
    console.print(f"  Stop everything    {command()} demo --stop{home_arg}")
    console.print(f"(Passwords and tokens: {result.home.root / 'secrets.json'}, readable by you only. "
                  f"Logs: {result.home.root / 'logs'}.)")
    if result.fallback:
        console.print(f"\n[bold red]No real judge:[/bold red] {result.fallback}. The embedded judge stood in: its "
                      "flags are noise, not label errors.")
    elif not result.judge:
        console.print("\n[bold yellow]Reminder:[/bold yellow] the embedded judge is a tiny model: its flags "
                      "show the plumbing, not real label errors (the default judge: bash scripts/demo.sh without "
                      "--judge embedded).")
    if result.review_projects:
        console.print(_where_the_review_stands(progress, home_arg))


def _where_the_review_stands(progress: Any, home_arg: str) -> str:
    """The closing line: what the report rests on now, and what the experts (then you) do next."""
    again = (f"run the demo again (bash scripts/demo.sh{home_arg}, or label-audit demo --labelstudio{home_arg}): "
             "it reuses everything and rewrites the report")
    if progress.items and not progress.pending:
        return ("[bold green]The review is settled[/bold green]: every item sent to the experts has a gold "
                "label, and the report rests on all of them.")
    if not progress.answered:
        waiting = progress.incomplete or progress.items
        return (f"[bold yellow]The report is a snapshot[/bold yellow]: {waiting} of {progress.items} items still "
                "lack an answer from every expert. Once the experts have labelled their projects, " + again + ".")
    return (f"[bold yellow]Round 2[/bold yellow]: the experts split on {progress.disagreed} item"
            f"{'s' if progress.disagreed != 1 else ''}, {progress.pending} still without a gold label. Each "
            "expert answers them in the reconciliation project above; then " + again + ".")


def print_env(home: Optional[Path]) -> None:
    """``export`` lines for the demo in ``home`` on stdout (for ``eval``); exit 2 with one line when there is none.

    The lines hold the demo's Label Studio token, read from its 0600 ``secrets.json``: they are meant for
    ``eval``, not for a log. A warning goes to stderr when the demo's Label Studio is not running.
    """
    # heavy via backend.demo (label_studio_sdk's client ~1.1 s, rq/redis); not loaded by label-audit --help
    from backend.demo.env import START, demo_environment, export_lines, path_line
    from backend.demo.home import DemoHome
    from backend.demo.processes import ProcessTable

    demo_home = DemoHome.at(local_home(home))
    err = Console(stderr=True, soft_wrap=True)  # a path or command stays on one line
    try:
        env = demo_environment(demo_home)
    except (ValueError, OSError, KeyError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2)
    if ProcessTable(demo_home.pids).get("labelstudio-source") is None:
        err.print(f"[yellow]warning:[/yellow] the demo in {demo_home.root} is not running; start it again with {START}")
    typer.echo(path_line() + export_lines(env), nl=False)
