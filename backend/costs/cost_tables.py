"""Terminal tables for the accounting and the dry-run estimate (the JSON carries the same numbers).

A member is shown by what tells it apart (:func:`backend.common.terminal_text.member_cells`): the prompt in its own
column, under a row naming its model when the run has several (else the model is in the title). Given the terminal's
width, a table that would not fit drops its least needed columns first (named in its caption; the JSON
keeps them) rather than cut member names to ``local:s…``; only then does a name fold. Cost columns appear
when a price file was given; without one, the caption says so once instead of ``no price`` in every row.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from rich.console import Console
from rich.table import Table

from backend.common.terminal_text import member_cells, plain


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


class MemberRows:
    """A table whose first column names each member by its prompt; with several models, each model's prompts
    come under a row naming the model (one narrow column: a terminal folds nothing that a lead must read).

    Column names may hold a newline (a two-line header keeps a number column narrow).
    """

    def __init__(self, title: str, member_ids: Sequence[str], columns: Sequence[str]) -> None:
        models = list(dict.fromkeys(member_cells(m)[0] for m in member_ids))
        self.several = len(models) > 1
        self.columns = tuple(columns)
        self.table = Table(title=title if self.several or not models else f"{title}: {plain(models[0])}")
        self.table.add_column("model / prompt" if self.several else ("prompt" if models else "member"),
                              overflow="fold")
        for column in self.columns:
            self.table.add_column(column, justify="right")
        self._model: str | None = None

    def add(self, member_id: str, cells: Sequence[str]) -> None:
        """One member's row (after its model's row when the model changes)."""
        model, prompt = member_cells(member_id)
        if self.several and model != self._model:
            self.table.add_row(f"[bold]{plain(model)}[/bold]", *([""] * len(self.columns)))
            self._model = model
        self.table.add_row(f"  {plain(prompt)}" if self.several else plain(prompt or model), *cells)


def by_model(member_ids: Sequence[str]) -> list[int]:
    """Indexes of ``member_ids`` grouped by model (stable: first-seen model first, prompts in their order)."""
    order = {m: i for i, m in enumerate(dict.fromkeys(member_cells(x)[0] for x in member_ids))}
    return sorted(range(len(member_ids)), key=lambda i: order[member_cells(member_ids[i])[0]])


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
        if column not in shown:
            continue
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
        rows = MemberRows("Per member" + (f" (prices as of {when})" if when else ""),
                          [row["member"] for row in members], columns)
        for i in by_model([row["member"] for row in members]):
            values = cells(members[i])
            rows.add(members[i]["member"], [values[c] for c in columns])
        rows.table.add_row("total", *(total.get(c, "") for c in columns))
        if not priced:
            rows.table.caption = "cost: no price file (--prices)"
        return rows.table

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
        members = estimate["members"]
        rows = MemberRows(f"Dry run: {estimate['items']} items, {estimate['calls']} calls to make, "
                          f"{estimate['cached_calls']} cached (no model called)", [r["member"] for r in members], shown)
        for i in by_model([r["member"] for r in members]):
            row, seconds = members[i], members[i]["seconds"]
            values = {"calls": str(row["calls"]), "cached": str(row["cached"]),
                      "tokens in/out\n(est.)": f"{row['input_tokens']}/{row['output_tokens']}",
                      "cost\n(est.)": _usd(row["cost_usd"]),
                      "time\n(est.)": "PENDING" if seconds is None else f"{seconds:.1f} s",
                      "tokens by": plain(row["tokenizer"])}
            rows.add(row["member"], [values[c] for c in shown])
        rows.table.add_row("total", *(total.get(c, "") for c in shown))
        return rows.table

    return fitted(build, columns, ("tokens by",), width)
