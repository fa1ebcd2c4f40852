"""The demo's steps in order, each one reusing what an earlier run left; and ``--stop``.

Services run in the background (see :mod:`backend.demo.services`); the scoring runs here, through the
same queue and jobs as the Label Studio button, with a progress bar; the review and the report run
the real ``label-audit review push`` and ``audit-stats report`` commands, so the demo exercises exactly
what a user would type next.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from rich.console import Console

from backend.common import defaults
from backend.demo import project as demo_project
from backend.demo import services
from backend.demo.judge import judge_member, left_out
from backend.demo.home import (EXPERT_INSTANCES, RECONCILE_INSTANCE, DemoHome, load_secrets, load_state, save_state,
                               write_expert_instances)
from backend.demo.processes import ProcessTable
from backend.demo.round2 import ReviewProgress, reconcile_round
from backend.config.settings import Settings
from backend.demo.planted_report import describe
from backend.scoring.planted_ranking import planted_ranking, ranking_sentence
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

DEFAULT_PORTS = {"source": 8080, "expert-a": 8081, "expert-b": 8082, "reconcile": 8083, "backend": defaults.BACKEND_PORT,
                 "redis": 6379}
# Stop order: consumers first, Redis last ("labelstudio-review": the shared instance of older demos).
SERVICES = ("worker", "worker-confident", "backend", *(f"labelstudio-{n}" for n in EXPERT_INSTANCES),
            f"labelstudio-{RECONCILE_INSTANCE}", "labelstudio-review", "labelstudio-source", "redis")
# How the report is refreshed once the experts have answered: the demo writes it before any answer.
REFRESH = ("run the demo again with the same options (bash scripts/demo.sh, or label-audit demo --labelstudio): "
           "it reuses everything and rewrites this report")


@dataclass
class DemoResult:
    """What the demo leaves running and where to look (passwords stay in secrets.json, shown once here)."""

    home: DemoHome
    ls_url: str
    review_urls: dict[str, str]  # expert email -> their own instance
    project_id: int
    review_projects: dict[str, int] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    confident: dict[str, Any] = field(default_factory=dict)  # the tickets project (confident learning)
    progress: ReviewProgress = field(default_factory=ReviewProgress)  # where the experts' review stands
    judge: str | None = None  # a named local judge (--judge), None for the embedded one
    planted: dict[str, Any] = field(default_factory=dict)  # the sample's planted errors: found, ranked, AP
    fallback: str | None = None  # why the embedded judge stands in for the real one (it could not be installed)


def resolve_ports(state: dict[str, Any], wanted: dict[str, int | None]) -> dict[str, int]:
    """Explicit ports win, then those of an earlier run, then the defaults (moved up when busy).

    ``wanted["review"]`` (``--review-port``) is the first expert instance's port; the next ones follow it.
    """
    ports: dict[str, int] = {}
    known = state.get("ports", {})
    for name, default in DEFAULT_PORTS.items():
        base = wanted.get("review")
        if name in EXPERT_INSTANCES and base and name not in known and not wanted.get(name):
            port = int(base) + list(EXPERT_INSTANCES).index(name)
            while port in ports.values() or (port != int(base) and services.port_open(port)):
                port += 1
            ports[name] = port
        elif wanted.get(name):
            ports[name] = int(wanted[name])
        elif name in known:
            ports[name] = int(known[name])
        elif name == "redis":
            ports[name] = default  # a Redis already answering there is reused
        else:
            port = services.first_free_port(default)
            while port in ports.values():
                port = services.first_free_port(port + 1)
            ports[name] = port
    if len(set(ports.values())) != len(ports):
        raise ValueError(f"the demo's ports must differ: {ports}")
    return ports


def reconcile_port(home: DemoHome, state: dict[str, Any]) -> int:
    """The shared reconciliation instance's port, moved up (and saved) when another program took it first.

    Its port is chosen with the others at the first run but the instance starts only when round 2 begins,
    maybe days later: until it has been started once (no data folder), a busy port is not a reason to stop.
    """
    port = int(state["ports"][RECONCILE_INSTANCE])
    if home.ls_data(RECONCILE_INSTANCE).exists() or not services.port_open(port):
        return port
    taken = {int(p) for name, p in state["ports"].items() if name != RECONCILE_INSTANCE}
    moved = services.first_free_port(port + 1)
    while moved in taken:
        moved = services.first_free_port(moved + 1)
    state["ports"][RECONCILE_INSTANCE] = moved
    save_state(home, state)
    return moved


def _step(console: Console, text: str) -> None:
    console.print(f"[bold cyan]•[/bold cyan] {text}")


def start_services(home: DemoHome, ports: dict[str, int], state: dict[str, Any], keys: dict[str, Any],
                   console: Console, *, judge: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Redis, the Label Studio instances (source, one per expert), the backend and a worker: (instances, env).

    Every user of an open-source Label Studio can open every project of it: experts with accounts on the
    source instance could read the original labels and scores, and two experts on one review instance
    each other's answers. So each expert gets an instance of their own (sign-up closed on all).
    The backend and the worker judge with ``judge`` (a named local judge) when given; they are restarted
    when it differs from the judge of the previous run (they read their members once, at start).
    """
    table = ProcessTable(home.pids)
    if state.get("judge") != judge or state.get("left_out", "") != left_out(judge):
        table.stop("worker")
        table.stop("backend")
    state["judge"], state["left_out"] = judge, left_out(judge)
    say = lambda text: _step(console, text)  # noqa: E731
    binary = services.label_studio_binary(say=say, configured=home.label_studio_bin)
    redis_url = services.ensure_redis(home, table, port=ports["redis"])
    instances = {n: services.label_studio(home, instance=n, port=ports[n], secrets=keys, binary=binary)
                 for n in ("source", *EXPERT_INSTANCES)}
    services.ensure_label_studios(table, instances, say=say)
    source = instances["source"]
    common = {"DATABASE_URL": home.database_url, "LABEL_AUDIT_HOME": str(home.root), "REDIS_URL": redis_url,
              "LABEL_AUDIT_QUEUE": state["queue"], "LABEL_AUDIT_BATCH": "4", "LABEL_AUDIT_MEMBERS": judge_member(judge),
              "LABEL_AUDIT_EXCLUDE_MEMBERS": left_out(judge),
              # the embedded judge answers "supported" whatever the item (member health names every prompt): the
              # default reading (auto) then agrees best with the labels by flagging nothing, and the plumbing run
              # would have no suspects to review; it keeps the judges' average. The real judge reads by the default.
              **({"LABEL_AUDIT_PRIOR_CORRECTION": "none"} if judge is None else {})}
    auth = (keys["backend"]["user"], keys["backend"]["password"])
    # Both read the source project (the backend its guidelines, the worker to import predictions).
    worker_env = services.child_env({**common, "LABEL_STUDIO_URL": source.url, "LABEL_STUDIO_API_KEY": source.token})
    backend_env = {**worker_env, "BASIC_AUTH_USER": auth[0], "BASIC_AUTH_PASS": auth[1]}
    state["backend_url"] = services.ensure_backend(home, table, port=ports["backend"], env=backend_env, auth=auth)
    services.ensure_worker(home, table, env=worker_env)
    experts = ", ".join(f"{instances[n].url} ({n})" for n in EXPERT_INSTANCES)
    _step(console, f"Services up: Label Studio {source.url} (source) and {experts}, "
                   f"Redis {redis_url}, backend {state['backend_url']}, one worker (logs in {home.root / 'logs'})")
    return instances, worker_env


def score(client, project_id: int, env: dict[str, str], table: ProcessTable, console: Console, *,
          label: str = "scoring with the embedded judge", worker: str = "worker") -> tuple[dict[str, Any], list]:
    """Score every task through the queue (only those not scored yet), with a progress bar.

    Returns the audit's summary and its verdicts as Label Studio now holds them (the project pass's: health gate,
    then the prior correction), so every figure the demo prints reads the flags the lead sees."""
    # heavy: rq, redis and label_studio_sdk's client (~1.5 s), not loaded by label-audit --help
    from redis import Redis
    from rq import Queue

    # heavy: rq, redis and label_studio_sdk's client (~1.5 s), not loaded by label-audit --help
    from backend.ledger import Ledger
    from backend.worker.gate_writeback import gated_summary
    from backend.worker.project_audit import import_missing, start_audit, wait_for
    from backend.worker.ensemble_config import EnsembleConfig

    settings = Settings.from_env(env)  # the worker's settings: it runs with this environment
    config = EnsembleConfig.from_settings(settings)
    ledger = Ledger(env["DATABASE_URL"])
    queue = Queue(env["LABEL_AUDIT_QUEUE"], connection=Redis.from_url(env["REDIS_URL"]))
    run = start_audit(client, project_id, queue=queue, ledger=ledger, config=config)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)
        if done < total and table.get(worker) is None:
            raise RuntimeError(f"the worker stopped; see {env['LABEL_AUDIT_HOME']}/logs/worker.log")

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("scoring", total=len(run.task_ids))
        done = wait_for(ledger, queue, run, timeout=defaults.AUDIT_WAIT, on_progress=progress)
    import_missing(client, ledger, run, config, queue=queue)
    summary = gated_summary(client, ledger, run, config, quorum=settings.quorum())
    if not done:
        raise RuntimeError("not every task was scored; see the worker log and run the demo again")
    wanted = set(run.task_ids)  # the ledger now holds the pass's verdicts, as Label Studio does
    return summary, [r for r in ledger.iter_results(run.project, run.model_version) if str(r.id) in wanted]


def run_cli(args: list[str], env: dict[str, str], *, what: str) -> str:
    """Run one of our own commands (as a user would type it) and return its stdout; stderr on failure."""
    proc = subprocess.run([sys.executable, "-m", *args], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def run_demo(*, home: DemoHome, ports: dict[str, int | None], console: Console, judge: str | None = None) -> DemoResult:
    """Every step of the demo; safe to run again (each step reuses what is there). ``judge``: a named local
    judge instead of the embedded one (:mod:`backend.demo.judge`)."""
    keys = load_secrets(home)
    state = load_state(home)
    state.setdefault("queue", f"label-audit-demo-{secrets.token_hex(4)}")
    state["ports"] = resolve_ports(state, ports)
    save_state(home, state)
    instances, env = start_services(home, state["ports"], state, keys, console, judge=judge)
    save_state(home, state)
    source = instances["source"]
    client = _client(source)
    state["project"], created = demo_project.ensure_project(client, known_id=state.get("project"))
    save_state(home, state)
    _step(console, f"Sample project {state['project']} " + ("created" if created else "found")
          + f" ({len(demo_project.sample_rows())} SNLI pairs, {sum(r['planted'] for r in demo_project.sample_rows())} "
          "labels planted wrong)")
    demo_project.connect_model(client, state["project"], url=state["backend_url"],
                               auth=(keys["backend"]["user"], keys["backend"]["password"]))
    summary, verdicts = score(client, state["project"], env, ProcessTable(home.pids), console,
                              label=f"scoring with {judge_member(judge)}" if judge else "scoring with the embedded judge")
    _step(console, f"Scored {summary['scored']} of {summary['items']} items; {summary['flagged']} flagged "
                   "(the ensemble contradicts the original label)")
    planted = planted_ranking([r.to_json() for r in verdicts])
    _step(console, ranking_sentence(planted))
    review_env = _expert_instances(home, instances, keys, env)
    pushed = json.loads(run_cli(["backend.cli", "review", "push", "--project", str(state["project"]),
                                 "--experts", ",".join(keys["experts"]), "--json"],
                                review_env, what="label-audit review push"))
    _step(console, f"Blind review: {pushed['items']} suspects in one project per expert, each on the "
                   f"expert's own Label Studio ({pushed['added']} added now)")
    progress = ReviewProgress()  # nothing flagged: nothing in review, no round 2
    if pushed["items"]:
        progress, review_env = reconcile_round(home, keys, port=reconcile_port(home, state),
                                               project=state["project"], env=review_env, run_cli=run_cli,
                                               say=lambda text: _step(console, text))
    run_cli(["stats_cli.cli", "report", "--project", str(state["project"]), "--format", "html",
             "--out", str(home.report), "--no-progress", "--refresh-with", REFRESH], review_env,
            what="audit-stats report")
    state["review_projects"] = pushed["projects"]
    save_state(home, state)
    found = confident_step(client, env, state, home, console)
    urls = {email: instances[name].url for name, email in EXPERT_INSTANCES.items()}
    return DemoResult(home=home, ls_url=source.url, review_urls=urls, project_id=state["project"],
                      review_projects={k: int(v) for k, v in pushed["projects"].items()}, summary=summary,
                      confident=found, progress=progress, judge=judge, planted=planted)


def confident_step(client, env: dict[str, str], state: dict[str, Any], home: DemoHome,
                   console: Console) -> dict[str, Any]:
    """The tickets project, audited by the confident-learning member through a worker of its own."""
    # heavy: rq, redis and label_studio_sdk's client (~1.5 s), not loaded by label-audit --help
    from backend.demo import confident

    state["tickets_project"], created = confident.ensure_tickets_project(client, known_id=state.get("tickets_project"))
    save_state(home, state)
    _step(console, f"Ticket project {state['tickets_project']} " + ("created" if created else "found")
          + " (150 support tickets, 15 queues planted wrong)")
    worker_env = confident.worker_env(env, f"{state['queue']}-confident")
    table = ProcessTable(home.pids)
    if table.get("worker-confident") is None:
        table.spawn("worker-confident", [sys.executable, "-m", "backend.cli", "worker"], env=worker_env,
                    log=home.log("worker-confident"), cwd=home.root)
    summary, verdicts = score(client, state["tickets_project"], worker_env, table, console,
                              label=f"scoring with {confident.MEMBER}", worker="worker-confident")
    rows = confident.planted_found(verdicts)
    _step(console, f"Confident learning on the tickets: {summary['flagged']} of {summary['items']} flagged")
    describe(rows, console.print)
    return {"project": state["tickets_project"], "summary": summary, "planted": rows}


def _client(ls):
    # heavy: rq, redis and label_studio_sdk's client (~1.5 s), not loaded by label-audit --help
    from backend.labelstudio.client import connect

    return connect(ls.url, ls.token)


def _expert_instances(home: DemoHome, instances: dict[str, Any], keys: dict[str, Any],
                      env: dict[str, str]) -> dict[str, str]:
    """Sign each expert up on their own instance; the command environment naming the expert -> instance map."""
    # heavy: rq, redis and label_studio_sdk's client (~1.5 s), not loaded by label-audit --help
    from backend.labelstudio.expert_instances import EXPERT_INSTANCES_ENV

    for name, email in EXPERT_INSTANCES.items():
        demo_project.ensure_expert(_client(instances[name]), email, keys["experts"][email])
    path = write_expert_instances(home, {n: instances[n].url for n in EXPERT_INSTANCES}, keys)
    return {**env, EXPERT_INSTANCES_ENV: str(path)}


def stop_demo(*, home: DemoHome, say: Callable[[str], None]) -> list[str]:
    """Stop every process this demo started (recorded by pid and start time); the names stopped."""
    table = ProcessTable(home.pids)
    stopped = [name for name in SERVICES if table.stop(name)]
    for record in table.records():  # anything recorded under another name
        table.stop(record.name)
        stopped.append(record.name)
    say("stopped: " + (", ".join(stopped) if stopped else "nothing was running"))
    return stopped
