"""The end-of-run summary of `label-audit score`: counts, errors by reason, member health, the top suspects.

Kept apart from the command so the demo, the score command and anything else that runs the engine
print and save the same summary (a table on the terminal, a JSON object with ``--summary-json``).
On the terminal the counts stay in their two-column table; what is a sentence — the task, the flag rule,
the members named by their health — is printed as a paragraph that wraps at the terminal's width, never
squeezed into a right-aligned number column (at 80 columns that broke the flag rule into fragments).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

from backend.common import defaults
from backend.families.choices_presentation import BareCodes
from backend.scoring.class_reach import reach_lines
from backend.scoring.confident_template import KIND as CONFIDENT_KIND
from backend.scoring.results import ItemResult, base_member_id
from backend.scoring.run_stats import EngineStats
from backend.task.spec import TaskSpec
from backend.common.terminal_text import member_cells, plain
from backend.costs.cost_tables import usage_table
from backend.summaries.health_table import print_health

#: Labels listed by name in a task's title; more are counted.
TITLE_LABELS = 6


@dataclass
class SuspectList:
    """Keeps the flagged items of a run (only those: a run may have millions of items)."""

    flagged: list[ItemResult] = field(default_factory=list)

    def add(self, result: ItemResult) -> None:
        if result.flagged:
            self.flagged.append(result)

    def top(self, n: int) -> list[ItemResult]:
        """The ``n`` most confident suspects (confidence descending, then input order)."""
        return sorted(self.flagged, key=lambda r: -(r.confidence or 0.0))[:n]


def _suspect_row(result: ItemResult) -> dict[str, Any]:
    return {
        "id": result.id,
        "line": result.line,
        "original": result.original,
        "prediction": result.prediction,
        "confidence": None if result.confidence is None else round(result.confidence, 4),
        "suspicious_text": result.suspicious_text,
        "found_by": found_by(result),
    }


def found_by(result: ItemResult) -> list[str]:
    """The members whose own most probable label differs from the original: who found this suspect."""
    return [m.member_id for m in result.members
            if m.probs and result.original is not None and max(m.probs, key=m.probs.get) != result.original]


def _found_by_text(members: Sequence[str]) -> str:
    """``found_by`` per model: ``smollm2 (3 prompts), cleanlab:tfidf-logreg`` (question rows folded).

    An LLM is named by its model alone (the provider is the same few words on every row, and a narrow
    column would cut the name after it); a non-LLM member keeps its kind.
    """
    per_model: dict[str, set[str]] = {}
    for member in members:
        model, prompt = member_cells(base_member_id(member))
        kind, _, name = model.partition(":")
        per_model.setdefault(model if kind == CONFIDENT_KIND or not name else name, set()).add(prompt)
    return ", ".join(m if len(p) == 1 else f"{m} ({len(p)} prompts)" for m, p in per_model.items())


def task_title(spec: TaskSpec, *, source: str | None = None) -> str:
    """The task as a lead knows it: ``topics.xml: "Which topics…?" (multilabel: Sports, Politics)``.

    ``source`` names where the task came from (a spec name given with ``--task``, the label config's file,
    the input file, ``project 12``); without it the spec's own name. A generic spec's name is a placeholder
    (``labelstudio``, ``generic``) that says nothing about the task.
    """
    labels = list(spec.labels[:TITLE_LABELS])
    more = len(spec.labels) - len(labels)
    label_text = ", ".join(labels) + (f" and {more} more" if more > 0 else "")
    question = " ".join((spec.prompt.question if spec.prompt else "").split())
    return f"{source or spec.name}" + (f': "{question}"' if question else "") + f" ({spec.family}: {label_text})"


def build_summary(
    stats: EngineStats,
    *,
    task: str,
    members: Sequence[str],
    model_version: str,
    threshold: float,
    delta: int | None,
    suspects: SuspectList,
    flag_rule: str | None = None,
    quorum: Any = None,
    accounting: dict[str, Any] | None = None,
    top: int = defaults.TOP,
    title: str | None = None,
    health: dict[str, Any] | None = None,
    excluded: Sequence[str] = (),
    presentation: Sequence[BareCodes] = (),
) -> dict[str, Any]:
    """One JSON-able summary: the stats of the run plus what was run, its members' health and top suspects.

    ``task`` is the spec's name (it enters the model version), ``title`` what the terminal calls the task
    (:func:`task_title`); ``health`` is :meth:`backend.scoring.member_health.HealthTally.to_dict`; ``excluded`` the
    members the settings left out (``LABEL_AUDIT_EXCLUDE_MEMBERS``); ``presentation`` the pre-flight warnings of
    :func:`backend.families.choices_presentation.bare_codes` (said before the run, repeated here so a saved summary
    explains a collapse its member health shows).
    """
    out = stats.to_dict()
    out.update(
        {
            "task": task,
            "task_title": title or task,
            "members": list(members),
            "model_version": model_version,
            "threshold": threshold,
            "delta": delta,
            "flag_rule": flag_rule,
            "quorum": None if quorum is None else {"min_share": quorum.min_share, "every_model": quorum.every_model},
            "top_suspects": [_suspect_row(r) for r in suspects.top(top)],
            "usage": accounting,
            "cost_usd_total": None if accounting is None else accounting["cost_usd_total"],
            "member_health": health,
            "excluded_members": list(excluded),
            "presentation_warnings": [w.to_dict() for w in presentation],
        }
    )
    return out


def adjustment_lines(summary: dict[str, Any]) -> list[str]:
    """What was decided over the whole run (:func:`backend.scoring.project_pass.project_pass`), in sentences; then
    the classes its verdicts under- or over-read against the run's labels (:mod:`backend.scoring.class_reach`)."""
    gate = summary.get("health_gate") or {}
    lines = [f"Left out of the verdicts and flags by member health (the health gate): {row['member']}: {row['reason']}."
             for row in gate.get("left_out") or []]
    if gate.get("note"):
        lines.append(f"Health gate: {gate['note']}.")
    correction = summary.get("prior_correction") or {}
    written = gate.get("predictions")  # `label-audit audit`: the re-read verdicts written over the workers' predictions
    if written is not None:
        missing = f"; {written['missing']} tasks had no prediction of this version there" if written["missing"] else ""
        who = "the health gate" if correction.get("mode") in (None, "none") else "the health gate and prior correction"
        lines.append(f"Predictions {who} rewrote in Label Studio: {written['rewritten']} of "
                     f"{written['checked']}{missing}.")
    if correction.get("mode") == "auto":
        lines.extend(_choice_lines(correction))
    elif correction.get("mode") == "fitted":
        lines.append(f"Prior correction fitted: each verdict re-read by a model of the run's own labels on the "
                     f"answers of {len(correction.get('members') or [])} judges, fitted on the other "
                     f"{correction.get('folds', 5) - 1} of {correction.get('folds', 5)} folds (an item's label never "
                     f"reads its own answer)" + (f"; {correction['note']}" if correction.get("note") else "."))
    elif correction.get("mode") not in (None, "none"):
        priors = correction.get("priors") or {}
        towards = {"given": " towards the class shares of the run's own labels",
                   "batch": " towards equal classes"}.get(correction["mode"], "")
        lines.append(f"Prior correction {correction['mode']}: each judge's answers re-weighted by the class prior read "
                     f"from its own answers over the run{towards} ({len(priors)} judges)"
                     + (f"; {correction['note']}" if correction.get("note") else "."))
    return lines + reach_lines(summary.get("class_reach"))


#: How the summary names ``auto``'s candidates (:mod:`backend.scoring.correction_choice`).
_READINGS = {"none": "the judges' average", "given": "given", "fitted": "fitted"}


def _choice_lines(correction: dict[str, Any]) -> list[str]:
    """``auto``: which reading it chose and on what (each candidate's agreement with the run's labels), then the
    chosen correction's own sentence."""
    if correction.get("note"):
        return [f"Prior correction auto: {correction['note']}."]
    agree = correction.get("agreement") or {}
    order = sorted(agree, key=lambda m: list(_READINGS).index(m) if m in _READINGS else len(_READINGS))
    counts = ", ".join(f"{_READINGS.get(m, m)} {agree[m]['agree']} of {agree[m]['of']}" for m in order)
    refused = "".join(f"; {m} was not a candidate ({why})" for m, why in (correction.get("refused") or {}).items())
    chosen = str(correction.get("chosen") or "none")
    lines = [f"Prior correction auto: chose {_READINGS.get(chosen, chosen)}, the reading whose verdicts agree with the "
             f"most of the run's own labels, no label read to predict itself (labels agreed with: {counts}){refused}."]
    if chosen != "none":
        lines.extend(line for line in adjustment_lines({"prior_correction": {**correction, "mode": chosen}})
                     if line.startswith("Prior correction"))
    return lines


def print_presentation(messages: Sequence[str], console: Console) -> None:
    """The pre-flight warnings (labels the judges cannot read), one sentence each, as the run's start and its
    summary print them."""
    for message in messages:
        console.print(f"[bold yellow]Warning:[/bold yellow] {plain(message)}")


def print_adjustments(summary: dict[str, Any], console: Console) -> None:
    """The health gate's members left out (with the reason) and the prior correction, one sentence each."""
    for line in adjustment_lines(summary):
        console.print(plain(line))


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the counts table, the task and flag rule, per-member usage and health, and the top suspects."""
    console = console or Console()
    counts = Table(title="Summary", show_header=False)
    counts.add_column("what")
    counts.add_column("count", justify="right")
    counts.add_row("members", str(len(summary["members"])))
    for name in ("items", "scored", "flagged", "llm_calls", "cache_hits"):
        counts.add_row(name, str(summary[name]))
    if summary.get("insufficient"):
        counts.add_row("insufficient (below quorum, not flagged)", str(summary["insufficient"]))
    errors = summary.get("errors") or {}
    counts.add_row("errors", str(sum(errors.values())))
    for reason, n in errors.items():
        counts.add_row(f"  {plain(reason)}", str(n))
    if summary.get("suspicious"):
        counts.add_row("instruction-like text", str(summary["suspicious"]))
    if summary.get("seconds_per_item") is not None:
        counts.add_row("seconds per item (fresh calls)", f"{summary['seconds_per_item']:.3f}")
    counts.add_row("model_version", plain(summary["model_version"]))
    console.print(counts)
    console.print(f"[bold]Task:[/bold] {plain(summary.get('task_title') or summary['task'])}")
    if summary.get("flag_rule"):
        console.print(f"[bold]Flag rule:[/bold] confidence > {summary['threshold']} and {plain(summary['flag_rule'])}")
    print_presentation([w["message"] for w in summary.get("presentation_warnings") or []], console)
    if summary.get("excluded_members"):
        console.print("[bold]Left out by the settings:[/bold] " + plain(", ".join(summary["excluded_members"])))
    if summary.get("usage"):
        console.print(usage_table(summary["usage"], width=console.width))
    if summary.get("member_health"):
        print_health(summary["member_health"], console)
    print_adjustments(summary, console)
    suspects = summary.get("top_suspects") or []
    if not suspects:
        console.print(f"No item flagged (threshold {summary['threshold']}).")
        return
    table = Table(title=f"Top suspects (confidence > {summary['threshold']})")
    for column in ("id", "line", "original", "prediction", "confidence", "found by", "note"):
        table.add_column(column, justify="right" if column in ("line", "confidence") else "left",
                         overflow="fold" if column in ("id", "original", "prediction", "found by") else "ellipsis")
    for row in suspects:
        table.add_row(  # ids and labels come from the data: printed as text, never as markup or escapes
            plain(row["id"]), "" if row["line"] is None else str(row["line"]), plain(row["original"]),
            plain(row["prediction"]), f"{row['confidence']:.3f}", plain(_found_by_text(row.get("found_by") or [])),
            "instruction-like text" if row["suspicious_text"] else "",
        )
    console.print(table)
