"""Terminal tables for the accounting and the dry-run estimate (the JSON carries the same numbers)."""

from __future__ import annotations

from typing import Any, Mapping

from rich.table import Table


def _usd(value: float | None, *, digits: int = 4) -> str:
    return "no price" if value is None else f"${value:.{digits}f}"


def _latency(row: Mapping[str, Any]) -> str:
    if row["latency_median_s"] is None:
        return "-"
    return f"{row['latency_median_s']:.2f}/{row['latency_p95_s']:.2f}"


def usage_table(usage: Mapping[str, Any]) -> Table:
    """Per member: calls, cached, errors, tokens, latency median/p95, cost; the total last."""
    when = usage.get("prices_as_of")
    early = any(row["skipped_early_exit"] for row in usage["members"])
    table = Table(title="Per member" + (f" (prices as of {when})" if when else ""))
    columns = ["member", "calls", "cached", *(["skipped"] if early else []), "errors", "tokens in/out",
               "latency s p50/p95", "cost", "per 10k"]
    for column in columns:
        table.add_column(column, justify="left" if column == "member" else "right")
    for row in usage["members"]:
        table.add_row(
            row["member"], str(row["calls"]), str(row["cached"]), *([str(row["skipped_early_exit"])] if early else []),
            str(row["errors"]), f"{row['input_tokens']}/{row['output_tokens']}", _latency(row),
            _usd(row["cost_usd"]), _usd(row["cost_per_10k_labels_usd"], digits=2),
        )
    table.add_row("total", str(usage["calls"]), "", *([""] if early else []), "",
                  f"{usage['input_tokens']}/{usage['output_tokens']}", "", _usd(usage["cost_usd_total"]), "")
    return table


def estimate_table(estimate: Mapping[str, Any]) -> Table:
    """The dry run: per member, calls still to make, tokens, cost and time (each with its basis)."""
    table = Table(title=f"Dry run: {estimate['items']} items, {estimate['calls']} calls to make, "
                        f"{estimate['cached_calls']} cached (no model called)")
    for column in ("member", "calls", "cached", "tokens in/out (est.)", "cost (est.)", "time (est.)", "tokens by"):
        table.add_column(column, justify="left" if column in ("member", "tokens by") else "right")
    for row in estimate["members"]:
        seconds = row["seconds"]
        table.add_row(
            row["member"], str(row["calls"]), str(row["cached"]), f"{row['input_tokens']}/{row['output_tokens']}",
            _usd(row["cost_usd"]), "PENDING" if seconds is None else f"{seconds:.1f} s", row["tokenizer"],
        )
    total_s = estimate.get("seconds")
    table.add_row("total", str(estimate["calls"]), str(estimate["cached_calls"]),
                  f"{estimate['input_tokens']}/{estimate['output_tokens']}", _usd(estimate["cost_usd"]),
                  "PENDING (no earlier call timed)" if total_s is None else f"{total_s:.1f} s", "")
    return table
