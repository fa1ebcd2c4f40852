"""The end-of-run summary of `label-audit score`: counts, errors by reason, the top suspects.

Kept apart from the command so the demo, the score command and anything else that runs the engine
print and save the same summary (a table on the terminal, a JSON object with ``--summary-json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

from backend import defaults
from backend.scoring.results import ItemResult
from backend.scoring.run_stats import EngineStats
from backend.terminal_text import plain


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
    """``found_by`` per model: ``local:smollm2 (3 prompts), cleanlab:tfidf-logreg``."""
    per_model: dict[str, int] = {}
    for member in members:
        model = member.rsplit("/", 1)[0]
        per_model[model] = per_model.get(model, 0) + 1
    return ", ".join(m if n == 1 else f"{m} ({n} prompts)" for m, n in per_model.items())


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
) -> dict[str, Any]:
    """One JSON-able summary: the stats of the run plus what was run and its top suspects."""
    out = stats.to_dict()
    out.update(
        {
            "task": task,
            "members": list(members),
            "model_version": model_version,
            "threshold": threshold,
            "delta": delta,
            "flag_rule": flag_rule,
            "quorum": None if quorum is None else {"min_share": quorum.min_share, "every_model": quorum.every_model},
            "top_suspects": [_suspect_row(r) for r in suspects.top(top)],
            "usage": accounting,
            "cost_usd_total": None if accounting is None else accounting["cost_usd_total"],
        }
    )
    return out


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the counts table, errors by reason, and the top suspects."""
    console = console or Console()
    counts = Table(title="Summary", show_header=False)
    counts.add_column("what")
    counts.add_column("count", justify="right")
    counts.add_row("task", plain(summary["task"]))
    counts.add_row("members", str(len(summary["members"])))
    for name in ("items", "scored", "flagged", "llm_calls", "cache_hits"):
        counts.add_row(name, str(summary[name]))
    if summary.get("insufficient"):
        counts.add_row("insufficient (below quorum, not flagged)", str(summary["insufficient"]))
    if summary.get("flag_rule"):
        counts.add_row("flag rule", str(summary["flag_rule"]))
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
    if summary.get("usage"):
        from backend.costs.report import usage_table

        console.print(usage_table(summary["usage"]))
    suspects = summary.get("top_suspects") or []
    if not suspects:
        console.print(f"No item flagged (threshold {summary['threshold']}).")
        return
    table = Table(title=f"Top suspects (confidence > {summary['threshold']})")
    for column in ("id", "line", "original", "prediction", "confidence", "found by", "note"):
        table.add_column(column, justify="right" if column in ("line", "confidence") else "left")
    for row in suspects:
        table.add_row(  # ids and labels come from the data: printed as text, never as markup or escapes
            plain(row["id"]), "" if row["line"] is None else str(row["line"]), plain(row["original"]),
            plain(row["prediction"]), f"{row['confidence']:.3f}", plain(_found_by_text(row.get("found_by") or [])),
            "instruction-like text" if row["suspicious_text"] else "",
        )
    console.print(table)
