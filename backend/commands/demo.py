"""`label-audit demo`: the bundled sample scored offline by the embedded judge, or (``--labelstudio``) the whole
loop in Label Studio (:mod:`backend.commands.demo_ls`).

Kept apart from ``score`` so that neither command module imports the other: this one uses the scoring run
of :mod:`backend.commands.score` and the Label Studio demo's options.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from backend.common import defaults
from backend.scoring.cache import CallCache
from backend.common.cli_errors import fail as _fail
from backend.commands import context, demo_ls
from backend.commands.score import run_scoring
from backend.demo.judge import DEFAULT_JUDGE, EMBEDDED, judge_member, judge_note, require_judge
from backend.providers.named_models import named_model
from backend.scoring.members import build_members, MemberSpec
from backend.task.spec import load_spec
import json
import tempfile
from backend.task.generic import generic_spec
from backend.demo.tickets import write_tickets, LABELS
from backend.demo.planted_report import describe, planted_table
from backend.scoring.planted_ranking import planted_ranking, ranking_sentence

DEMO_SAMPLE = "sample_snli.jsonl"  # the Label Studio demo's sample too (backend.demo.project)
DEMO_WARNING = (
    "The embedded default judge is SmolLM2-135M-Instruct: a tiny model that runs anywhere, here so you can "
    "try the tool offline. It is NOT good enough to judge labels (it scores about chance on factual "
    "consistency), so do not read these suspects as findings. For a real audit use real models: "
    "--member openai:MODEL, --member gemini:MODEL, or --member openai:MODEL@http://HOST:PORT/v1 for any "
    "OpenAI-compatible server."
)


def demo(
    out: Optional[Path] = typer.Option(None, "--out", help="Write the per-item results (JSONL) here."),
    summary_json: Optional[Path] = typer.Option(None, "--summary-json", help="Also write the summary as JSON here."),
    cache_url: Optional[str] = typer.Option(None, "--cache-url", help="SQL URL of the call cache."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Call the model again for every item (to time it)."),
    labelstudio: bool = demo_ls.LABELSTUDIO,
    stop: bool = demo_ls.STOP,
    env: bool = demo_ls.ENV,
    home: Optional[Path] = demo_ls.HOME,
    ls_port: Optional[int] = demo_ls.LS_PORT,
    review_port: Optional[int] = demo_ls.REVIEW_PORT,
    backend_port: Optional[int] = demo_ls.BACKEND_PORT,
    redis_port: Optional[int] = demo_ls.REDIS_PORT,
    tickets: Optional[Path] = typer.Option(None, "--tickets", help="Write the demo's 150 support tickets (15 labels "
                                           "planted wrong, field 'planted') to this JSONL file and exit."),
    judge: Optional[str] = typer.Option(None, "--judge", help="The judge: a named local model (label-audit judge "
                                        f"list) or '{EMBEDDED}' (SmolLM2-135M: a quick plumbing run, its flags are "
                                        f"noise). Default: {DEFAULT_JUDGE} with --labelstudio (installed by the "
                                        f"demo's first step when missing), {EMBEDDED} for the file demo."),
) -> None:
    """Score the bundled sample offline with the embedded default judge (SmolLM2-135M) and show the suspects.

    With --judge NAME: a named local judge instead (installed once by scripts/install_judge.sh NAME).
    With --labelstudio: the whole loop in Label Studio (see backend.commands.demo_ls), judged by default by
    qwen2.5-coder-1.5b, installed first when missing; --stop ends it.
    """
    if env:  # only reads the demo's files: nothing starts, nothing is checked or installed
        demo_ls.print_env(home)
        return
    if tickets is not None:
        write_tickets(tickets)
        Console().print(f"wrote 150 tickets (15 planted label errors) to {tickets}")
        return
    if judge is None and labelstudio and not stop:
        judge = DEFAULT_JUDGE
    judge = None if judge == EMBEDDED else judge
    try:  # the demo's judge whatever LABEL_AUDIT_MEMBERS says (the note is about it); the rest from settings
        settings = context.run_settings(member=[judge_member(judge)])
        if judge:
            named_model(judge)  # an unknown name is refused before anything starts
        if not (labelstudio or stop):
            require_judge(judge, folder=settings.models_dir)  # installed, or nothing starts and nothing downloads
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    if labelstudio or stop:
        demo_ls.main(stop=stop, home=home, warning=DEMO_WARNING, judge=judge, models_dir=settings.models_dir,
                     ports={"source": ls_port, "review": review_port, "backend": backend_port, "redis": redis_port})
        return
    console = Console()
    spec = load_spec("factual-consistency")
    try:
        members = build_members(settings.members, spec, providers=settings.provider_settings(),
                                prompts_root=settings.prompts_dir)
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    with resources.as_file(resources.files("backend").joinpath("data", DEMO_SAMPLE)) as sample:
        items = sum(1 for line in sample.read_text("utf-8").splitlines() if line.strip())
    note = judge_note(judge, items=items, prompts=len(members)) if judge else DEMO_WARNING
    console.print(f"[bold yellow]Note:[/bold yellow] {note}\n")
    cache = None if no_cache else CallCache(cache_url or settings.store_url)
    with resources.as_file(resources.files("backend").joinpath("data", DEMO_SAMPLE)) as sample, \
            tempfile.TemporaryDirectory() as folder:
        console.print(f"Scoring the bundled sample {sample.name} with {len(members)} members: "
                      + ", ".join(m.id for m in members))
        results = out or Path(folder) / "results.jsonl"  # the planted errors are counted from it
        try:
            summary = run_scoring(
                sample, spec, members, config=settings.engine_config(), cache=cache, out=results,
                summary_json=summary_json, top=defaults.TOP, progress=None, console=console,
            )
        finally:
            if cache is not None:
                cache.close()
        records = [json.loads(line) for line in results.read_text("utf-8").splitlines() if line.strip()]
    console.print(ranking_sentence(planted_ranking(records)))
    per_item = summary.get("seconds_per_item")
    if per_item is None:
        console.print("Per-item latency: every answer came from the cache (run `label-audit demo --no-cache` to time the model).")
    else:
        console.print(
            f"Per-item latency: {per_item:.2f} s per item ({len(members)} prompts each, "
            f"{summary['llm_calls']} model calls in {summary['wall_seconds']:.1f} s, "
            f"{summary['seconds_per_call']:.2f} s per call)."
        )
    if not judge:
        console.print(f"\n[bold yellow]Reminder:[/bold yellow] {DEMO_WARNING}")
    demo_confident(console, settings=settings, cache=cache_url if not no_cache else None, no_cache=no_cache)


def demo_confident(console: Console, *, settings, cache: Optional[str], no_cache: bool) -> dict:
    """Part two: a sample large enough for the confident-learning member, with planted label errors.

    150 self-written support tickets (:mod:`backend.demo.tickets`), 10 % of their labels planted wrong,
    scored by ``cleanlab:tfidf-logreg`` (seconds). The embedded judge is left out here: part 1 shows it at
    chance, and 150 more calls would double the demo's time on two cores. The planted errors are known, so
    the demo prints how many of them each member and the ensemble found, and with what precision.
    """

    console.print("\n[bold]Part 2: confident learning on 150 support tickets with 15 planted label errors[/bold]")
    spec = generic_spec(labels=list(LABELS), fields=["text"], name="support-tickets",
                        guidelines="Which support queue does the customer's message belong to?",
                        option_orders=settings.option_orders, calibration=settings.calibration)
    entries = [MemberSpec(provider="cleanlab", model="tfidf-logreg")]
    members = build_members(entries, spec, providers=settings.provider_settings(), prompts_root=settings.prompts_dir)
    store = None if no_cache else CallCache(cache or settings.store_url)
    with tempfile.TemporaryDirectory() as folder:
        sample = write_tickets(Path(folder) / "tickets.jsonl")
        out = Path(folder) / "results.jsonl"
        try:
            summary = run_scoring(sample, spec, members, config=settings.engine_config(), cache=store, out=out,
                                  summary_json=None, top=defaults.TOP, progress=None, console=console)
        finally:
            if store is not None:
                store.close()
        found = planted_table(out, members=[m.id for m in members])
    console.print(found["table"])
    describe(found["rows"], console.print)
    console.print(found["note"])
    summary["planted"] = found["rows"]
    return summary


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the `label-audit` app."""
    app.command()(demo)
