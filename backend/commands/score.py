"""`label-audit score` and `label-audit demo`: run the LLM ensemble over a labelled file.

``score`` reads JSONL/CSV through a task spec, writes one JSON line per input item (``--out``), prints a
summary (and saves it with ``--summary-json``). ``demo`` does the same on the bundled sample with the
embedded default judge, and says plainly that the tiny model is for trying the tool, not for judging.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Optional

import typer
from rich.console import Console

from backend.common import defaults
from backend.common.atomic_write import atomic_write
from backend.config.settings import Settings
from backend.scoring.cache import CallCache
from backend.commands import context
from backend.common.cli_errors import fail as _fail
from backend.costs.accounting import Accountant, provider_model
from backend.costs.budget import Budget
from backend.costs.dry_run import estimate_run
from backend.costs.prices import PriceTable, load_prices
from backend.costs.cost_tables import estimate_table
from backend.confident.fitting import prepare_members
from backend.confident.run_block import ConfidentTally, confident_ids, print_block
from backend.task.dataset import read_items
from backend.images.items import with_images
from backend.images.vision import check_members_see
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.question_engine import make_engine
from backend.scoring.ensemble import VerdictRule, describe_flag_rule, flag_rule
from backend.scoring.members import Member, build_members, ensemble_fingerprint
from backend.scoring.member_health import HealthTally
from backend.scoring.project_pass import project_pass
from backend.families.choices_presentation import bare_codes
from backend.summaries.score_summary import SuspectList, build_summary, print_presentation, print_summary, task_title
from backend.commands.task_options import resolve_task
from backend.task.spec import TaskSpec

def _exit_cleanly_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C (temporary output removed, old file kept) instead of killing mid-write."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def run_scoring(
    input_path: Path,
    spec: TaskSpec,
    members: list[Member],
    *,
    config: EngineConfig,
    cache: CallCache | None,
    out: Path | None,
    summary_json: Path | None,
    top: int,
    progress: bool | None,
    console: Console,
    prices: PriceTable | None = None,
    budget: Budget | None = None,
    dry_run: bool = False,
    max_chars: int = defaults.MAX_ITEM_CHARS,
    title: str | None = None,
    excluded: tuple[str, ...] = (),
    settings: Settings | None = None,
    prior_correction: str = defaults.PRIOR_CORRECTION,
) -> dict[str, Any]:
    """Score ``input_path``, stream results to ``out``, print and return the summary.

    ``dry_run`` only estimates (no model is called); ``budget`` stops the run at its cap: the item
    where it stopped and the later ones are not written, and rerunning resumes from the cache.
    ``title`` is what the summary calls the task (:func:`backend.summaries.score_summary.task_title`); ``excluded`` the
    members the settings left out, reported beside each member's health. ``settings`` (the command's; default
    the environment's) say where an image spec's images may be fetched from. After every item is scored, the
    health gate and ``prior_correction`` re-read the verdicts over the whole run
    (:func:`backend.scoring.project_pass.project_pass`); the file is written after that.
    """
    presentation = bare_codes(spec)  # labels the judges cannot read: said before any item is read or call made
    print_presentation([w.message for w in presentation], console)
    entries = list(read_items(input_path, spec, max_chars=max_chars))
    if spec.image_fields:
        entries = with_images(entries, spec, settings=settings if settings is not None else Settings.from_env())
    try:  # confident-learning members learn from every labelled item of the file: one fit per run
        prepared = prepare_members(members, entries, spec, delimit=config.delimit)
    except ValueError as exc:
        _fail(str(exc))
    members = prepared.members
    for note in prepared.notes():
        console.print(f"[bold yellow]Note:[/bold yellow] {note}")
    engine = make_engine(spec, members, cache=cache, config=config, budget=budget)
    if dry_run:
        return _dry_run(engine, entries, prices=prices, summary_json=summary_json, console=console,
                        presentation=[w.to_dict() for w in presentation])
    suspects, health = SuspectList(), HealthTally()
    confident = ConfidentTally(confident_ids([m.id for m in members]))
    accountant = Accountant(prices, [m.id for m in members])
    show_progress = (sys.stderr.isatty() and len(entries) > 20) if progress is None else progress
    _exit_cleanly_on_sigterm()
    rule = VerdictRule(spec, threshold=engine.threshold, delta=config.delta, quorum=config.quorum)
    stopped, adjusted = _stream_results(engine, entries, out=out, tallies=(suspects, confident, health),
                                        accountant=accountant, budget=budget, progress=show_progress,
                                        adjust=lambda results: project_pass(results, rule,
                                                                            prior_correction=prior_correction,
                                                                            health=health))
    summary = build_summary(
        engine.stats,
        task=spec.name,
        members=[m.id for m in members],
        model_version=ensemble_fingerprint(members, spec, prior_correction=prior_correction,
                                           order_skip=config.order_skip),
        threshold=engine.threshold,
        delta=config.delta,
        suspects=suspects,
        flag_rule=describe_flag_rule(spec, delta=config.delta),
        quorum=config.quorum,
        top=top,
        accounting=accountant.to_dict(),
        title=title or task_title(spec),
        health=health.to_dict(),
        excluded=excluded,
        presentation=presentation,
    )
    summary["stopped"] = stopped
    summary.update(adjusted)
    summary["confident_learning"] = confident.block(classes=spec.labels, left_out=prepared.left_out,
                                                    trained=prepared.trained, top=top)
    if summary_json:
        write_json(summary_json, summary)
    print_summary(summary, console)
    print_block(summary["confident_learning"], console)
    if stopped is not None:
        Console(stderr=True).print(
            f"--max-cost {budget.cap if budget else ''} reached: stopped before item {stopped['next_id']} "
            f"(line {stopped['next_line']}) after {stopped['items_done']} of {len(entries)} items, "
            f"${stopped['spent_usd']} spent; every finished call is cached: run the same command again "
            "(with a higher --max-cost) to resume, no call is made twice"
        )
    return summary


def _stream_results(engine: Engine, entries: list, *, out: Path | None, tallies: tuple, accountant: Accountant,
                    budget: Budget | None, progress: bool,
                    adjust: Callable[[list], tuple[list, dict[str, Any]]]) -> tuple[dict[str, Any] | None, dict]:
    """Score ``entries``, re-read the verdicts over the whole run (``adjust``: the health gate, the prior
    correction), then fill the tallies, ``accountant`` and ``out``; the stop record when the budget ran out, and
    what ``adjust`` did.

    The health tally (among ``tallies``) folds the judges' answers as they come: it is what ``adjust`` decides
    on. ``out`` is replaced only when the run completes: an interrupted or killed re-run keeps the old file.
    """
    scored: list = []
    stop: dict[str, Any] | None = None
    health = [t for t in tallies if isinstance(t, HealthTally)]
    others = [t for t in (*tallies, accountant) if not isinstance(t, HealthTally)]
    results = engine.score(entries, progress=progress)
    try:
        for done, result in enumerate(results):
            if any(m.reason == "over_budget" for m in result.members):
                engine.stats.remove_result(result)  # the summary counts the written items only
                accountant.add(result)  # its answered calls were made (and paid); cached for the rerun
                stop = {"reason": "max_cost", "items_done": done, "next_id": result.id,
                        "next_line": result.line, "spent_usd": round(budget.spent, 9) if budget else None}
                break
            scored.append(result)
            for tally in health:
                tally.add(result)
    except KeyboardInterrupt:
        Console(stderr=True).print(
            f"interrupted after {engine.stats.items} of {len(entries)} items; every finished call is cached: "
            "run the same command again to resume"
        )
        raise typer.Exit(130) from None
    finally:
        results.close()  # a budget stop: calls already sent finish and are cached, queued ones are dropped
    final, adjusted = adjust(scored)
    with atomic_write(out) if out else contextlib.nullcontext() as handle:
        for before, result in zip(scored, final):
            if result is not before:  # the verdict was re-read: the run's counts follow it
                engine.stats.remove_result(before)
                engine.stats.add_result(result)
            for tally in others:
                tally.add(result)
            if handle is not None:
                handle.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    return stop, adjusted


def _dry_run(engine: Engine, entries: list, *, prices: PriceTable | None, summary_json: Path | None,
             console: Console, presentation: list[dict[str, Any]]) -> dict[str, Any]:
    """Estimate the run (no model called): print the per-member table, save it (and the pre-flight warnings,
    ``presentation``) with ``--summary-json``."""
    estimate = estimate_run(engine, entries, prices=prices)
    if summary_json:
        write_json(summary_json, {"dry_run": estimate, "presentation_warnings": presentation})
    console.print(estimate_table(estimate, width=console.width))
    console.print(estimate["note"])
    return {"dry_run": estimate}


def cheapest_first(members: list[Member], prices: PriceTable) -> list[Member]:
    """Members ordered by their model's price (stable: a model's prompts keep their order)."""
    return sorted(members, key=lambda m: prices.order_key(*provider_model(m.id)))


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        handle.write(json.dumps(data, indent=2) + "\n")


def score(
    input_path: Path = typer.Argument(..., metavar="INPUT", help="Labelled items: JSONL, or CSV/TSV by suffix."),
    task: Optional[str] = context.TASK,
    labels: Optional[list[str]] = context.LABELS,
    fields: Optional[str] = context.FIELDS,
    guidelines: Optional[Path] = context.GUIDELINES,
    label_config: Optional[Path] = context.LABEL_CONFIG,
    family: Optional[str] = context.FAMILY,
    negative_label: Optional[str] = context.NEGATIVE_LABEL,
    option_orders: Optional[int] = context.OPTION_ORDERS,
    members_file: Optional[Path] = context.MEMBERS_FILE,
    member: Optional[list[str]] = context.MEMBER,
    exclude_member: Optional[list[str]] = context.EXCLUDE_MEMBER,
    out: Optional[Path] = typer.Option(None, "--out", help="Write one JSON line per input item here."),
    summary_json: Optional[Path] = typer.Option(None, "--summary-json", help="Also write the summary as JSON here."),
    threshold: Optional[float] = context.THRESHOLD,
    delta: Optional[int] = context.DELTA,
    quorum: Optional[float] = context.QUORUM,
    quorum_models: Optional[bool] = context.QUORUM_MODELS,
    concurrency: Optional[int] = context.CONCURRENCY,
    timeout: Optional[float] = context.TIMEOUT,
    max_attempts: Optional[int] = context.MAX_ATTEMPTS,
    cache_url: Optional[str] = typer.Option(None, "--cache-url", help="SQL URL of the call cache (default: DATABASE_URL or ./.label-audit/audit.sqlite)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Call every member again and store nothing."),
    top: int = typer.Option(defaults.TOP, "--top", help="How many suspects to list."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Progress bar (default: on a terminal, for runs over 20 items)."),
    prices_file: Optional[Path] = typer.Option(None, "--prices", help="Price file (YAML: provider, model, input_per_million, output_per_million in USD); see examples/prices.example.yaml."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate items, calls, cached calls, tokens, cost and time per member; call no model."),
    max_cost: Optional[float] = typer.Option(None, "--max-cost", help="Stop cleanly before spending more than this many USD (needs --prices); rerun to resume."),
    prior_correction: Optional[str] = context.PRIOR_CORRECTION,
    early_exit: bool = typer.Option(defaults.EARLY_EXIT, "--early-exit", help="Call members cheapest first (by --prices) and stop an item once the rest cannot change its flag or prediction."),
) -> None:
    """Score a labelled file with an LLM ensemble and flag suspected label errors.

    An option left out takes its LABEL_AUDIT_* variable, else the default named in its help: the same
    settings the Label Studio workers judge with.
    """
    try:
        settings = context.run_settings(
            members_file=members_file, member=member, exclude_member=exclude_member, threshold=threshold,
            delta=delta, quorum_share=quorum,
            quorum_models=quorum_models, early_exit=early_exit or None, concurrency=concurrency,
            timeout=timeout, max_attempts=max_attempts, option_orders=option_orders,
            prior_correction=prior_correction,
        )
        spec = resolve_task(task=task, labels=labels, fields=fields, guidelines=guidelines,
                            label_config=label_config, family=family, negative_label=negative_label,
                            **settings.spec_options())
        config = settings.engine_config()
        flag_rule(spec, delta=config.delta)  # a bad rule fails here, before any call
        prices = load_prices(prices_file) if prices_file else None
        members = build_members(settings.members, spec, providers=settings.provider_settings(),
                                prompts_root=settings.prompts_dir)
        check_members_see(spec, members)  # an image task no member can see: refused before any item is read
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    if not input_path.is_file():
        _fail(f"no such input file: {input_path}")
    if config.early_exit and prices is not None:
        members = cheapest_first(members, prices)
    budget = None
    if max_cost is not None:
        if prices is None:
            _fail("--max-cost needs --prices")
        budget = Budget(max_cost, prices)
        try:
            budget.check_members(members)
        except ValueError as exc:
            _fail(str(exc))
    cache = None if no_cache else CallCache(cache_url or settings.store_url)
    try:
        summary = run_scoring(
            input_path, spec, members, config=config, cache=cache, out=out, summary_json=summary_json,
            top=top, progress=progress, console=Console(), prices=prices, budget=budget, dry_run=dry_run,
            max_chars=settings.max_item_chars, excluded=settings.exclude_members, settings=settings,
            prior_correction=settings.prior_correction,
            title=task_title(spec, source=task or (label_config.name if label_config else None)
                             or (input_path.name if labels else None)),
        )
    finally:
        if cache is not None:
            cache.close()
    if summary.get("stopped"):
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Add ``score`` to the `label-audit` app."""
    app.command()(score)
