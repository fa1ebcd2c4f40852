"""`label-audit probe`: test each LLM judge for gullibility before trusting its flags (seed 003).

Builds keyword-stuffing and instruction-injection probes from a labelled file, scores them with every
member through the engine (cached), prints the probe table, writes the JSON report (``--out``) and
stores the run in the audit database for `audit-stats report`. A task without a probe layout (any
generic project, ``--labels``/``--fields`` or ``--label-config`` as in ``score``) gets the
planted-instruction probe (:mod:`backend.probes.planted`); ``--probe planted`` runs it on a built-in
task too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from backend.common.atomic_write import atomic_write
from backend.scoring.cache import CallCache
from backend.common.cli_errors import fail
from backend.commands import context
from backend.task.dataset import read_items
from backend.scoring.members import build_members
from backend.probes.layout import layout_for
from backend.probes.pipeline import run_probes
from backend.probes.planted_run import render_planted
from backend.probes.findings import render_report
from backend.probes.probe_store import save_probe_report
from backend.commands.task_options import resolve_task
from backend.task.spec import TaskSpec

PROBE_KINDS = ("auto", "builtin", "planted")


def choose_probe(kind: str, spec: TaskSpec) -> str:
    """``auto``: the built-in probes when the spec has a probe layout, else the planted instruction."""
    if kind not in PROBE_KINDS:
        raise ValueError(f"--probe must be one of {', '.join(PROBE_KINDS)}, got {kind!r}")
    if kind != "auto":
        if kind == "builtin":
            layout_for(spec)  # ValueError saying why this task has no built-in probes
        return kind
    try:
        layout_for(spec)
    except ValueError:
        return "planted"
    return "builtin"


def parse_lengths(text: str) -> tuple[int, ...]:
    """``"100,200,400"`` -> ``(100, 200, 400)``; raises ValueError on anything but positive integers."""
    try:
        lengths = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"--lengths takes comma-separated word counts, got {text!r}") from None
    if not lengths or any(length < 1 for length in lengths):
        raise ValueError(f"--lengths takes positive word counts, got {text!r}")
    return lengths


def register(app: typer.Typer) -> None:
    """Add ``probe`` to the `label-audit` app."""

    @app.command()
    def probe(
        input_path: Path = typer.Argument(..., metavar="INPUT", help="Labelled items (JSONL, or CSV/TSV by suffix): the probes borrow their queries/claims and negative items."),
        task: Optional[str] = context.TASK,
        labels: Optional[list[str]] = context.LABELS,
        fields: Optional[str] = context.FIELDS,
        guidelines: Optional[Path] = context.GUIDELINES,
        label_config: Optional[Path] = context.LABEL_CONFIG,
        family: Optional[str] = context.FAMILY,
        negative_label: Optional[str] = context.NEGATIVE_LABEL,
        probe_kind: str = typer.Option("auto", "--probe", help="builtin (keyword stuffing + instruction, needs a probe layout), planted (planted instruction, any single-label task; it goes at the end of the last --fields entry) or auto (builtin when the task has a layout)."),
        members_file: Optional[Path] = context.MEMBERS_FILE,
        member: Optional[list[str]] = context.MEMBER,
        n: int = typer.Option(20, "--n", help="Items per condition (RandP: sampled items per length; NonRelP: negative items)."),
        seed: int = typer.Option(0, "--seed", help="Seed of every random choice (same seed, same probes)."),
        lengths: str = typer.Option("100,200,400", "--lengths", help="Random-passage lengths in words."),
        compare_delimiting: bool = typer.Option(False, "--compare-delimiting", help="Also score every probe without the data fencing, to measure what it buys."),
        out: Optional[Path] = typer.Option(None, "--out", help="Write the probe report (JSON) here."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of tables."),
        store: bool = typer.Option(True, "--store/--no-store", help="Save the run in the audit database (read by audit-stats report)."),
        db_url: Optional[str] = typer.Option(None, "--db-url", help="SQL URL of the audit database (default: --cache-url, else DATABASE_URL or ./.label-audit/audit.sqlite)."),
        cache_url: Optional[str] = typer.Option(None, "--cache-url", help="SQL URL of the call cache."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Call every member again and store no answer."),
        concurrency: Optional[int] = context.CONCURRENCY,
        timeout: Optional[float] = context.TIMEOUT,
        max_attempts: Optional[int] = context.MAX_ATTEMPTS,
        progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Progress bar (default: on a terminal)."),
    ) -> None:
        """Probe each judge: keyword-stuffed and instruction-injected items that deserve the negative label
        (built-in tasks), or a planted instruction naming another label (any single-label task)."""
        if not input_path.is_file():
            fail(f"no such input file: {input_path}")
        try:
            settings = context.run_settings(members_file=members_file, member=member, concurrency=concurrency,
                                    timeout=timeout, max_attempts=max_attempts)
            spec = resolve_task(task=task, labels=labels, fields=fields, guidelines=guidelines,
                                label_config=label_config, family=family, negative_label=negative_label,
                                **settings.spec_options())
            kind = choose_probe(probe_kind, spec)
            if kind == "planted" and compare_delimiting:
                raise ValueError("--compare-delimiting goes with the built-in probes, not --probe planted")
            lengths_t = parse_lengths(lengths)
            if n < 1:
                raise ValueError("--n must be at least 1")
            config = settings.engine_config()
            members = build_members(settings.members, spec, providers=settings.provider_settings(),
                                    prompts_root=settings.prompts_dir)
        except (ValueError, OSError) as exc:
            fail(str(exc))
        cache = None if no_cache else CallCache(cache_url or settings.store_url)
        show_progress = sys.stderr.isatty() if progress is None else progress
        try:
            report = run_probes(
                read_items(input_path, spec), spec, members, cache=cache, n=n, seed=seed, lengths=lengths_t,
                config=config, compare_delimiting=compare_delimiting, progress=show_progress, probe=kind,
            )
        except ValueError as exc:
            fail(str(exc))
        finally:
            if cache is not None:
                cache.close()
        if out:
            out.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(out) as handle:
                handle.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        if store:
            save_probe_report(report, url=db_url or cache_url or settings.store_url)
        if as_json:
            typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
        elif kind == "planted":
            render_planted(report, Console())
        else:
            render_report(report, Console())
