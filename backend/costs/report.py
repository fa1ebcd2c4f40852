"""Terminal tables for the accounting and the dry-run estimate (the JSON carries the same numbers).

A member is shown by what tells it apart (:func:`backend.terminal_text.member_cells`): the prompt in its own
column, the model in another only when the run has several (else in the title). Given the terminal's
width, a table that would not fit drops its least needed columns first (named in its caption; the JSON
keeps them) rather than cut member names to ``local:s…``; only then does a name fold. Cost columns appear
when a price file was given; without one, the caption says so once instead of ``no price`` in every row.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from rich.console import Console
from rich.table import Table

from backend.terminal_text import member_cells, plain


def _usd(value: float | None, *, digits: int = 4) -> str:
    return "no price" if value is None else f"${value:.{digits}f}"


def _latency(row: Mapping[str, Any]) -> str:
    if row["latency_median_s"] is None:
        return "-"
    return f"{row['latency_median_s']:.2f}/{row['latency_p95_s']:.2f}"


def natural_width(table: Table) -> int:
    """The width ``table`` takes with no limit (what it needs to show every cell whole)."""
    console = Console(width=10_000)
    return table.__rich_measure__(console, console.options).maximum


def member_table(title: str, member_ids: Sequence[str], columns: Sequence[str]) -> tuple[Table, bool]:
    """A table whose first columns name each member: ``prompt``, preceded by ``model`` when there are several.

    Returns the table and whether it has the model column (then a row starts with two member cells).
    Column names may hold a newline (a two-line header keeps a number column narrow).
    """
    models = sorted({member_cells(m)[0] for m in member_ids})
    several = len(models) > 1
    table = Table(title=title if several or not models else f"{title}: {plain(models[0])}")
    if several:
        table.add_column("model", overflow="fold")
    table.add_column("prompt" if models else "member", overflow="fold")
    for column in columns:
        table.add_column(column, justify="right")
    return table, several


def member_row(member_id: str, several: bool) -> list[str]:
    """The member cells of one row (see :func:`member_table`)."""
    model, prompt = member_cells(member_id)
    return [plain(model), plain(prompt)] if several else [plain(prompt or model)]


def fitted(build: Callable[[Sequence[str]], Table], columns: Sequence[str], droppable: Sequence[str],
           width: int | None) -> Table:
    """``build(columns)``, leaving out ``droppable`` columns (in that order) until it fits ``width``.

    The caption names what was left out. Why by hand: rich fits a wide table by folding its widest
    column, which is the member's name — the one cell that must stay readable.
    """
    shown = list(columns)
    table = build(shown)
    dropped: list[str] = []
    for column in droppable:
        if width is None or natural_width(table) <= width:
            break
        shown.remove(column)
        dropped.append(column.replace("\n", " "))
        table = build(shown)
    if dropped:
        note = f"not shown at this width: {', '.join(dropped)} (see --summary-json)"
        table.caption = f"{table.caption}; {note}" if table.caption else note
    return table


_USAGE = ("calls", "cached", "skipped", "errors", "tokens\nin/out", "latency s\np50/p95", "cost", "per 10k")


def usage_table(usage: Mapping[str, Any], *, width: int | None = None) -> Table:
    """Per member: calls, cached, errors, tokens, latency median/p95, cost when priced; the total last."""
    when = usage.get("prices_as_of")
    early = any(row["skipped_early_exit"] for row in usage["members"])
    priced = usage.get("price_file", True)
    wanted = [c for c in _USAGE if (c != "skipped" or early) and (c not in ("cost", "per 10k") or priced)]
    members = usage["members"]
    total = {"calls": str(usage["calls"]), "cached": str(sum(r["cached"] for r in members)),
             "tokens\nin/out": f"{usage['input_tokens']}/{usage['output_tokens']}",
             "cost": _usd(usage["cost_usd_total"])}

    def cells(row: Mapping[str, Any]) -> dict[str, str]:
        return {"calls": str(row["calls"]), "cached": str(row["cached"]), "skipped": str(row["skipped_early_exit"]),
                "errors": str(row["errors"]), "tokens\nin/out": f"{row['input_tokens']}/{row['output_tokens']}",
                "latency s\np50/p95": _latency(row), "cost": _usd(row["cost_usd"]),
                "per 10k": _usd(row["cost_per_10k_labels_usd"], digits=2)}

    def build(columns: Sequence[str]) -> Table:
        table, several = member_table("Per member" + (f" (prices as of {when})" if when else ""),
                                      [row["member"] for row in members], columns)
        for row in members:
            values = cells(row)
            table.add_row(*member_row(row["member"], several), *(values[c] for c in columns))
        table.add_row(*(["total", ""] if several else ["total"]), *(total.get(c, "") for c in columns))
        if not priced:
            table.caption = "cost: no price file (--prices)"
        return table

    return fitted(build, wanted, ("per 10k", "latency s\np50/p95", "tokens\nin/out"), width)


def estimate_table(estimate: Mapping[str, Any], *, width: int | None = None) -> Table:
    """The dry run: per member, calls still to make, tokens, cost and time (each with its basis)."""
    columns = ("calls", "cached", "tokens in/out\n(est.)", "cost\n(est.)", "time\n(est.)", "tokens by")
    total_s = estimate.get("seconds")
    total = {"calls": str(estimate["calls"]), "cached": str(estimate["cached_calls"]),
             "tokens in/out\n(est.)": f"{estimate['input_tokens']}/{estimate['output_tokens']}",
             "cost\n(est.)": _usd(estimate["cost_usd"]),
             "time\n(est.)": "PENDING (no earlier call timed)" if total_s is None else f"{total_s:.1f} s"}

    def build(shown: Sequence[str]) -> Table:
        table, several = member_table(
            f"Dry run: {estimate['items']} items, {estimate['calls']} calls to make, "
            f"{estimate['cached_calls']} cached (no model called)", [row["member"] for row in estimate["members"]],
            shown)
        for row in estimate["members"]:
            seconds = row["seconds"]
            values = {"calls": str(row["calls"]), "cached": str(row["cached"]),
                      "tokens in/out\n(est.)": f"{row['input_tokens']}/{row['output_tokens']}",
                      "cost\n(est.)": _usd(row["cost_usd"]),
                      "time\n(est.)": "PENDING" if seconds is None else f"{seconds:.1f} s",
                      "tokens by": plain(row["tokenizer"])}
            table.add_row(*member_row(row["member"], several), *(values[c] for c in shown))
        table.add_row(*(["total", ""] if several else ["total"]), *(total.get(c, "") for c in shown))
        return table

    return fitted(build, columns, ("tokens by",), width)
