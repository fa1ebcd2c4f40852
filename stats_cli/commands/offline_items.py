"""Per-item offline commands: stratify, confidence-bins, rerank (registered by ``offline.register``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from stats_cli.stats.aggregate import aggregate as aggregate_items
from stats_cli.sources.columns import as_label, as_probability, extract, score_for
from stats_cli.commands.offline_options import (
    AnnotatorCol,
    FileArg,
    FormatOpt,
    GoldCol,
    ItemCol,
    JsonOpt,
    LabelCol,
    OriginalCol,
    fail,
    load_ratings,
    load_rows,
)
from stats_cli.stats.confidence_bins import OUTCOMES, confidence_bins as make_bins
from stats_cli.stats.labels import normalize_label
from stats_cli.commands.output import print_result, print_table
from stats_cli.stats.rerank import METRIC_NAMES, METRICS, rerank as rerank_models
from stats_cli.sources.rows import RowError
from stats_cli.stats.stratify import stratify as stratify_items

__all__ = ["stratify", "confidence_bins", "rerank"]


def stratify(
    file: FileArg,
    truth_col: Annotated[Optional[str], typer.Option(help="Ground-truth label column (default with --annotations: their majority).")] = None,
    pred_col: Annotated[str, typer.Option(help="Predicted label column.")] = "prediction",
    pd_col: Annotated[Optional[str], typer.Option(help="Column holding p_d (share of annotators behind the truth).")] = None,
    annotations: Annotated[Optional[Path], typer.Option(exists=True, dir_okay=False, help="Long-format annotations to derive truth and p_d from.")] = None,
    positive: Annotated[Optional[str], typer.Option(help="Positive label for F1 and m.")] = None,
    decimals: Annotated[int, typer.Option(help="Round p_d to this many decimals to form strata.")] = 2,
    labels: Annotated[Optional[str], typer.Option(help="The task's labels, comma-separated (default: every label in the file); expected macro F1 runs over them.")] = None,
    item_col: ItemCol = "item", annotator_col: AnnotatorCol = "annotator", label_col: LabelCol = "label",
    format: FormatOpt = None, json_out: JsonOpt = False,
) -> None:
    """Accuracy and F1 per p_d stratum, with sample size, positive ratio m and the expected score (Elangovan)."""
    if (pd_col is None) == (annotations is None):
        raise fail("give exactly one of --pd-col and --annotations")
    if truth_col is None and annotations is None:
        raise fail("--truth-col is required with --pd-col")
    rows, errors = load_rows(file, format)
    fields: dict[str, Any] = {"pred": (pred_col, as_label)}
    if truth_col is not None:
        fields["truth"] = (truth_col, as_label)
    if pd_col is not None:
        fields["p_d"] = (pd_col, as_probability)
    else:
        fields["item"] = (item_col, lambda v: str(v).strip())
    columns, lines = extract(rows, fields, errors)
    if annotations is not None:
        table = load_ratings(annotations, wide=False, fmt_=None, item_col=item_col, annotator_col=annotator_col,
                             label_col=label_col)
        errors += [RowError(e.line, f"{annotations.name}: {e.message}") for e in table.errors]
        majority = {a.item: a for a in aggregate_items(table, method="majority") if a.label is not None}
        columns = _join_annotations(columns, lines, majority, errors, truth_given=truth_col is not None)
    try:
        label_set = [x.strip() for x in labels.split(",") if x.strip()] if labels is not None else None
        strata, pos = stratify_items(columns["truth"], columns["pred"], columns["p_d"], positive=positive,
                                     decimals=decimals, label_set=label_set)
    except ValueError as exc:
        raise fail(str(exc)) from None
    print_result(errors, json_out=json_out,
                 payload=lambda: {"positive_label": pos, "n_items": len(columns["pred"]),
                                  "strata": [s.to_json() for s in strata]},
                 tables=lambda: print_table(
                     f"Scores by p_d — {file.name}" + (f" (positive: {pos})" if pos else " (macro F1)"),
                     ["p_d", "n", "m", "accuracy", "E[accuracy]", "F1", "E[F1]"],
                     [[s.name, s.n, s.m, s.accuracy, s.expected_accuracy, s.f1, s.expected_f1] for s in strata],
                     caption="E[·]: a labeller following the majority with probability p_d (p_d = 1 taken as 0.97)"))


def _join_annotations(columns: dict[str, list[Any]], lines: list[int], majority: dict, errors: list[RowError],
                      *, truth_given: bool) -> dict[str, list[Any]]:
    """Attach each row's majority label (unless --truth-col) and p_d from the annotations, by item id."""
    out: dict[str, list[Any]] = {"truth": [], "pred": [], "p_d": []}
    for i, (item, line) in enumerate(zip(columns["item"], lines)):
        agg = majority.get(item)
        if agg is None:
            errors.append(RowError(line, f"item {item!r} has no annotations"))
            continue
        out["truth"].append(columns["truth"][i] if truth_given else agg.label)
        out["pred"].append(columns["pred"][i])
        out["p_d"].append(agg.p_d)
    return out


def confidence_bins(
    file: FileArg,
    original_col: OriginalCol = "original",
    prediction_col: Annotated[str, typer.Option(help="LLM prediction column.")] = "prediction",
    confidence_col: Annotated[str, typer.Option(help="LLM confidence column.")] = "confidence",
    gold_col: GoldCol = "gold",
    bins: Annotated[int, typer.Option(help="Number of quantile bins (bins under --min-n items are merged).")] = 5,
    min_n: Annotated[int, typer.Option(help="Fewest items a bin may hold.")] = 10,
    interval: Annotated[str, typer.Option(help="clopper-pearson (exact) or bootstrap (Nahum's percentile).")] = "clopper-pearson",
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples per share (--interval bootstrap).")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (--interval bootstrap).")] = 0,
    all_items: Annotated[bool, typer.Option("--all-items", help="Keep items where the LLM agrees with the original.")] = False,
    format: FormatOpt = None, json_out: JsonOpt = False,
) -> None:
    """Per confidence bin: share of expert verdicts siding with the LLM, the original, or neither (95 % CIs)."""
    rows, errors = load_rows(file, format)
    columns, _ = extract(rows, {
        "original": (original_col, as_label), "prediction": (prediction_col, as_label),
        "confidence": (confidence_col, as_probability), "gold": (gold_col, as_label),
    }, errors)
    try:
        result = make_bins(columns["original"], columns["prediction"], columns["confidence"], columns["gold"],
                           bins=bins, resamples=resamples, seed=seed, disagreements_only=not all_items,
                           min_n=min_n, interval=interval)
    except ValueError as exc:
        raise fail(str(exc)) from None

    def cell(share: Any) -> str:
        if share.low is None:
            return f"{share.value:.2f}"
        return f"{share.value:.2f} [{share.low:.2f}, {share.high:.2f}]"

    print_result(errors, json_out=json_out,
                 payload=lambda: {"n_items": sum(b.n for b in result), "seed": seed, "resamples": resamples,
                                  "interval": interval, "min_n": min_n,
                                  "bins": [b.to_json() for b in result]},
                 tables=lambda: print_table(
                     f"Expert verdicts by LLM confidence — {file.name}",
                     ["bin", "confidence", "n", *(f"sides with {o}" for o in OUTCOMES)],
                     [[b.index, f"{b.conf_min:.3f}–{b.conf_max:.3f}", b.n, *(cell(b.shares[o]) for o in OUTCOMES)]
                      for b in result],
                     caption=(f"share [95% bootstrap CI], {resamples} resamples, seed {seed}" if interval == "bootstrap"
                              else f"share [95% Clopper-Pearson CI]; bins of fewer than {min_n} items merged")))


def rerank(
    file: FileArg,
    model_col: Annotated[str, typer.Option(help="Model name column.")] = "model",
    score_col: Annotated[str, typer.Option(help="Score (probability of the positive label) column; falls back to probs/confidence.")] = "score",
    prediction_col: Annotated[str, typer.Option(help="Predicted label column (default: score ≥ threshold).")] = "prediction",
    original_col: OriginalCol = "original",
    gold_col: GoldCol = "gold",
    positive: Annotated[str, typer.Option(help="Positive label.")] = "1",
    threshold: Annotated[float, typer.Option(help="Score threshold when there is no prediction.")] = 0.5,
    format: FormatOpt = None, json_out: JsonOpt = False,
) -> None:
    """Per model: ROC AUC, positive-class and weighted F1, accuracy on original vs gold labels and the change in rank (Nahum Table 4)."""
    rows, errors = load_rows(file, format)
    pos = normalize_label(positive) or "1"
    columns, _ = extract(rows, {
        "model": (model_col, as_label), "original": (original_col, as_label), "gold": (gold_col, as_label),
    }, errors, derived={
        "score": lambda d: score_for(d, pos, score_col=score_col),
        "prediction": lambda d: normalize_label(d.get(prediction_col)),
    })
    predictions = columns["prediction"]
    if any(p is None for p in predictions):
        predictions = [p if p is not None else (pos if s >= threshold else "\0below-threshold")
                       for p, s in zip(predictions, columns["score"])]
    result = rerank_models(columns["model"], columns["score"], predictions, columns["original"], columns["gold"],
                           positive=pos, threshold=threshold)

    def tables() -> None:
        table_rows = []
        for r in result:
            j = r.to_json()
            change = "" if r.rank_change is None else f"{r.rank_change:+d}"
            table_rows.append([r.model, r.n, j["rank_original"], j["rank_gold"], change,
                               *(f"{_f(j[f'{m}_original'])} → {_f(j[f'{m}_gold'])} ({_pct(j[f'{m}_change_pct'])})"
                                 for m in METRICS)])
        print_table(f"Models on original vs gold labels — {file.name}",
                    ["model", "n", "rank orig", "rank gold", "Δ rank", *(METRIC_NAMES[m] for m in METRICS)], table_rows,
                    caption=f"ranked by ROC AUC; Δ rank > 0 = moved up on gold labels; F1 of positive class {pos!r}, "
                            "weighted F1 = both classes' F1 weighted by support (Nahum App. B)")

    print_result(errors, json_out=json_out, tables=tables,
                 payload=lambda: {"positive_label": pos, "models": [r.to_json() for r in result]})


def _f(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.0f}%"
