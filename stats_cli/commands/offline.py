"""Offline `audit-stats` commands: agreement, aggregate, bounds, expected, stratify, confidence-bins, rerank.

Thin wrappers: each reads its file (bad rows reported with line numbers and skipped), calls one
library module, and prints rich tables or, with ``--json``, a single JSON object.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from backend.api import atomic_write
from backend.api import safe_row
from backend.api import plain
from stats_cli.stats.aggregate import aggregate as aggregate_items
from stats_cli.stats.agreement_summary import COEFFICIENTS, agreement_summary
from stats_cli.stats.bounds import error_rate_bounds
from stats_cli.commands.offline_items import confidence_bins, rerank, stratify
from stats_cli.commands.offline_options import (
    AnnotatorCol,
    FileArg,
    FormatOpt,
    ItemCol,
    JsonOpt,
    LabelCol,
    WideOpt,
    fail,
    load_ratings,
)
from stats_cli.stats.expected import expected_scores, prob_at_least, random_labeller
from stats_cli.commands.output import print_json, print_result, print_table, stdout

def agreement(
    file: FileArg,
    level: Annotated[str, typer.Option(help="nominal, ordinal or interval (Krippendorff α).")] = "nominal",
    positive: Annotated[Optional[str], typer.Option(help="Positive label for binary data.")] = None,
    labels: Annotated[Optional[str], typer.Option(help="Comma-separated full label set, e.g. 0,1 (labels nobody used).")] = None,
    wide: WideOpt = False, item_col: ItemCol = "item", annotator_col: AnnotatorCol = "annotator",
    label_col: LabelCol = "label", format: FormatOpt = None, json_out: JsonOpt = False,
) -> None:
    """Inter-annotator agreement: % agreement, Fleiss κ, Krippendorff α, Gwet AC1, Cohen κ, positive/negative agreement."""
    if level not in ("nominal", "ordinal", "interval"):
        raise fail(f"--level must be nominal, ordinal or interval, not {level!r}")
    table = load_ratings(file, wide=wide, fmt_=format, item_col=item_col, annotator_col=annotator_col, label_col=label_col,
                         numeric_only=level == "interval")
    try:
        declared = [x for x in labels.split(",") if x.strip()] if labels else None
        summary = agreement_summary(table, level=level, positive=positive, labels=declared)  # type: ignore[arg-type]
    except ValueError as exc:
        raise fail(str(exc)) from None

    def tables() -> None:
        print_table(f"Agreement — {file.name}", ["items", "annotators", "ratings", "pairable items", "labels"],
                    [[summary.n_items, summary.n_annotators, summary.n_ratings, summary.n_pairable_items,
                      ", ".join(summary.categories)]])
        rows = [[name, summary.coefficients[name].value, summary.coefficients[name].reason or ""]
                for name in COEFFICIENTS if name in summary.coefficients]
        caption = f"positive label: {summary.positive_label}" if summary.positive_label else None
        print_table(f"Coefficients ({level})", ["statistic", "value", "note"], rows, caption=caption)
        for note in summary.notes:
            stdout.print(f"note: {plain(note)}", highlight=False)

    print_result(table.errors, json_out=json_out, payload=summary.to_json, tables=tables, empty=summary.n_ratings == 0)


def aggregate(
    file: FileArg,
    method: Annotated[str, typer.Option(help="majority, strict, median or dawid-skene.")] = "majority",
    negative: Annotated[Optional[str], typer.Option(help="Negative label (strict; majority ties).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Write item,label,p_d,… to this CSV/TSV/JSONL file.")] = None,
    wide: WideOpt = False, item_col: ItemCol = "item", annotator_col: AnnotatorCol = "annotator",
    label_col: LabelCol = "label", format: FormatOpt = None, json_out: JsonOpt = False,
) -> None:
    """One label per item with the share of annotators behind it (p_d); ties reported."""
    table = load_ratings(file, wide=wide, fmt_=format, item_col=item_col, annotator_col=annotator_col, label_col=label_col,
                         numeric_only=method == "median")
    try:
        items = aggregate_items(table, method=method, negative=negative)  # type: ignore[arg-type]
    except ValueError as exc:
        raise fail(str(exc)) from None
    records = [a.to_json() for a in items]
    if out is not None:
        _write_records(out, records)
    n_ties = sum(a.tie for a in items)

    def tables() -> None:
        print_table(f"Aggregated labels ({method}) — {len(items)} items, {n_ties} tie(s)",
                    ["item", "label", "p_d", "votes", "ratings", "tie"],
                    [[r["item"], r["label"] if r["label"] is not None else "(no ratings)", r["p_d"], r["votes"],
                      r["n_ratings"], "/".join(r["tied_labels"]) if r["tie"] else ""] for r in records[:50]],
                    caption=f"first 50 of {len(items)}; use --out or --json for all" if len(items) > 50 else None)
        if out is not None:
            stdout.print(f"wrote {len(records)} items to {plain(out)}", highlight=False)

    print_result(table.errors, json_out=json_out, tables=tables, empty=table.n_ratings == 0,
                 payload=lambda: {"method": method, "n_items": len(items), "n_ties": n_ties, "items": records})


def _write_records(path: Path, records: list[dict[str, Any]]) -> None:
    """JSONL, or CSV/TSV with formula-looking cells neutralised; the old file stays until the new one is whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in {".jsonl", ".ndjson", ".json"}:
        with atomic_write(path) as handle:
            handle.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        return
    delimiter = "\t" if path.suffix.lower() in {".tsv", ".tab"} else ","
    with atomic_write(path, newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(["item", "label", "p_d", "votes", "n_ratings", "tie", "tied_labels"])
        for r in records:
            writer.writerow(safe_row([r["item"], r["label"] or "", "" if r["p_d"] is None else r["p_d"], r["votes"],
                                      r["n_ratings"], r["tie"], "|".join(r["tied_labels"])]))


def bounds(
    errors: Annotated[int, typer.Option(help="Errors found (k).")],
    sample: Annotated[int, typer.Option(help="Items reviewed (n).")],
    population: Annotated[Optional[int], typer.Option(help="Dataset size (N): exact finite-population bounds, and Nahum's CP+FPC.")] = None,
    confidence: Annotated[float, typer.Option(help="Confidence level.")] = 0.95,
    json_out: JsonOpt = False,
) -> None:
    """Error rate with its exact Clopper-Pearson interval and, given a population, the exact finite-population one."""
    try:
        result = error_rate_bounds(errors, sample, population=population, confidence=confidence)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if json_out:
        print_json(result.to_json())
        return
    rows = [["rate (k/n)", result.rate, None, None],
            ["Clopper-Pearson", None, result.cp_low, result.cp_high]]
    if result.population is not None:
        rows.append([f"exact, finite population (hypergeometric, N = {result.population})", None,
                     result.exact_low, result.exact_high])
        rows.append([f"CP + FPC as in Nahum Table 2 (N = {result.population}; not exact)", None, result.fpc_low,
                     result.fpc_high])
    print_table(f"Error rate: {errors} of {sample} ({confidence:.0%} interval)", ["", "rate", "low", "high"],
                [[r[0], *(("" if v is None else v) for v in r[1:])] for r in rows])


def expected(
    pd: Annotated[float, typer.Option("--pd", help="Probability of following the majority label (p_d).")],
    positive_ratio: Annotated[float, typer.Option(help="Share of positives (m).")],
    classes: Annotated[int, typer.Option(help="Number of classes L (random labeller p_r = 1/L).")] = 2,
    n: Annotated[Optional[int], typer.Option("--n", help="Number of items N for the score tail.")] = None,
    at_least: Annotated[Optional[int], typer.Option(help="Score R: print P(score ≥ R of N).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Expected accuracy, precision, recall, F1 of a majority-follower and of a random labeller (Elangovan)."""
    if (n is None) != (at_least is None):
        raise fail("--n and --at-least go together")
    try:
        labeller = expected_scores(pd, positive_ratio, n_classes=classes)
        rand = random_labeller(positive_ratio, n_classes=classes)
        tail = {"n": n, "at_least": at_least, "p_labeller": prob_at_least(n, at_least, pd),
                "p_random": prob_at_least(n, at_least, rand.p_d)} if n is not None else None
    except ValueError as exc:
        raise fail(str(exc)) from None
    if json_out:
        print_json({"labeller": labeller.to_json(), "random": {**rand.to_json(), "n_classes": classes},
                    "score_tail": tail})
        return
    print_table(f"Expected scores (p_d = {pd:g}, m = {positive_ratio:g})",
                ["labeller", "p_d", "accuracy", "precision", "recall", "F1"],
                [["follows majority", pd, labeller.accuracy, labeller.precision, labeller.recall, labeller.f1],
                 [f"random (L = {classes})", rand.p_d, rand.accuracy, rand.precision, rand.recall, rand.f1]])
    if tail is not None:
        print_table(f"P(score ≥ {at_least} of {n})", ["labeller", "probability"],
                    [["follows majority", tail["p_labeller"]], [f"random (L = {classes})", tail["p_random"]]])


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("agreement")(agreement)
    app.command("aggregate")(aggregate)
    app.command("bounds")(bounds)
    app.command("expected")(expected)
    app.command("stratify")(stratify)
    app.command("confidence-bins")(confidence_bins)
    app.command("rerank")(rerank)
