"""The presentations benchmark's printed tables: one run to the terminal, and the docs' tables from a ``--json`` file.

Why apart from :mod:`bench_presentations`: that script runs the judge; these only read what a run wrote (a JSON line
per run), so a table is printed again from the recorded figures without loading a model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from statsmodels.stats.proportion import proportion_confint

#: Class-prior corrections replayed over the same answers (:mod:`backend.scoring.prior_shift`).
CORRECTIONS = ("em", "batch", "given", "fitted", "auto")
#: Flag thresholds the sweep tries (the nominal default is 0.5; 1/3 is the least a 3-class argmax can have).
THRESHOLDS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)
#: The issue's bar for the class ratio: predicted ÷ true within this factor either way for every class.
RATIO_BAR = 1.5
VARIANTS = ("gated",) + tuple(f"gated+{m}" for m in CORRECTIONS) + ("gated+review",)


def _f(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}"


def _row(name: str, f: dict[str, Any], labels: Sequence[str]) -> str:
    ratios = " ".join(f"{lab}:{f['ratios'].get(lab, 0):.2f}" for lab in labels)
    return (f"  {name:<26} {_f(f['accuracy']):>5} {f['modal']:>14} {f['modal_share']:>4.0%} {ratios:<34} "
            f"{_f(f['auroc']):>5} {_f(f['ap']):>5} {f['flagged']:>3} {_f(f['flag_precision']):>5} "
            f"{_f(f['flag_recall']):>5} {_f(f.get('seconds_per_item')):>6}")


def print_run(out: dict[str, Any]) -> None:
    labels = out["labels"]
    print(f"\n== {out['data_set']} · {out['presentation']} · {out['items']} items, {out['planted']} planted · "
          f"{out['orders']} order(s) · {out['llm_calls']} fresh calls ==")
    print(f"  {'prompt':<26} {'acc':>5} {'top answer':>19} {'predicted / true':<34} {'AUROC':>5} {'AP':>5} "
          f"{'fl':>3} {'prec':>5} {'rec':>5} {'s/item':>6}")
    for name, f in out["members"].items():
        print(_row(name, f, labels))
    print(_row("ENSEMBLE (as scored)", out["ensemble"], labels))
    for name in VARIANTS:
        print(_row(f"ensemble, {name}", out[name], labels) if "pending" not in out[name]
              else f"  ensemble, {name}: {out[name]['pending']}")
    for name, f in out.get("order_skip", {}).items():
        print(_row(f"ensemble, {name}", f, labels) + f"  saves {f['saved']:.0%} of later calls, "
              f"{f['flags_differ']} flag(s) differ")
    choice = out.get("auto_choice") or {}
    if choice.get("agreement"):
        print("  auto chose " + str(choice["chosen"]) + " (given labels agreed with: " + ", ".join(
            f"{m} {a['agree']} of {a['of']}" for m, a in choice["agreement"].items()) + ")"
              + "".join(f"; {m} refused: {why}" for m, why in (choice.get("refused") or {}).items()))
    left = ", ".join(f"{x['member'].rsplit('/', 1)[-1]} ({x['reason']})" for x in out["gate"]["left_out"])
    print(f"  health gate: {left or 'none left out'}" + (f"; {out['gate']['note']}" if out["gate"]["note"] else ""))


def _cell(f: dict[str, Any]) -> str:
    ratios = [v for v in f["ratios"].values()]
    return (f"{_f(f['accuracy'])} / {f['modal']} {f['modal_share']:.0%} / {min(ratios):.2f}–{max(ratios):.2f} / "
            f"{_f(f['auroc'])} / {_f(f['ap'])} / {f['flagged']}, {_f(f['flag_precision'])} / {_f(f['flag_recall'])}")


def markdown(path: Path) -> str:
    """The docs' table from a ``--json`` file: one row per set x presentation x prompt, then the ensemble's."""
    lines = ["| set · presentation | prompt | accuracy / top answer's share / predicted ÷ true (min–max) / AUROC / AP / "
             "flags, precision / recall | s/item |", "|---|---|---|---|"]
    for out in _runs(path):
        where = f"{out['data_set']} · {out['presentation']} ({out['items']} items, {out['planted']} planted)"
        if out.get("prompts"):  # a --prompt run: its "ensemble" is those prompts alone, not the default ensemble
            where += f", {', '.join(out['prompts'])} only"
        for name, f in out["members"].items():
            lines.append(f"| {where} | {name} | {_cell(f)} | {_f(f['seconds_per_item'])} |")
        lines.append(f"| {where} | **ensemble** | {_cell(out['ensemble'])} | {_f(out['ensemble']['seconds_per_item'])} |")
        for name in VARIANTS:
            cell = out[name].get("pending") or _cell(out[name])
            lines.append(f"| {where} | ensemble, {name} | {cell} | |")
        for name, f in out.get("order_skip", {}).items():
            lines.append(f"| {where} | ensemble, {name} | {_cell(f)}; {f['saved']:.0%} of later calls saved, "
                         f"{f['flags_differ']} flag(s) differ | |")
        left = ", ".join(x["member"].rsplit("/", 1)[-1] for x in out["gate"]["left_out"])
        lines.append(f"| {where} | health gate | {left or 'none left out'} | |")
    return "\n".join(lines)


def _short(f: dict[str, Any]) -> str:
    ratios = list(f["ratios"].values())
    return (f"{_f(f['accuracy'])} / {min(ratios):.2f}–{max(ratios):.2f} / {_f(f['auroc'])} / {_f(f['ap'])} / "
            f"{f['flagged']}, {_f(f['flag_precision'])} / {_f(f['flag_recall'])}")


def _runs(path: Path) -> list[dict[str, Any]]:
    """Every run of a ``--json`` file (one JSON line each)."""
    return [json.loads(raw) for raw in path.read_text("utf-8").splitlines() if raw.strip()]


def _default_runs(path: Path) -> list[dict[str, Any]]:
    """The runs of a ``--json`` file that read the default ensemble through ``auto`` (not a ``--prompt`` run)."""
    return [out for out in _runs(path) if "gated+auto" in out and not out.get("prompts")]


def _where(out: dict[str, Any]) -> str:
    """A run's first cell: set · presentation (items, wrong labels)."""
    return f"{out['data_set']} · {out['presentation']} ({out['items']}, {out['planted']})"


def _chosen(choice: dict[str, Any]) -> str:
    """The reading ``auto`` chose, or why it read none."""
    return choice.get("chosen") or f"none ({choice.get('note') or 'not read'})"


def auto_table(path: Path) -> str:
    """One row per run of a ``--json`` file: what each reading's verdicts agreed with among the given labels, the
    reading ``auto`` (the default) chose, and the ensemble as scored (after the gate) beside the default's
    figures — the table the default reading is judged on."""
    lines = ["| set · presentation (items, wrong labels) | labels agreed with (none / given / fitted) | chosen | "
             "as scored (gated) | **auto** (the default) |", "|---|---|---|---|---|"]
    for out in _default_runs(path):
        choice = out.get("auto_choice") or {}
        agreed = choice.get("agreement") or {}
        counts = (" / ".join(str(agreed[m]["agree"]) if m in agreed else "refused" for m in ("none", "given", "fitted"))
                  if agreed else "not read")
        lines.append(f"| {_where(out)} | {counts} | {_chosen(choice)} | {_short(out['gated'])} | "
                     f"{_short(out['gated+auto'])} |")
    return "\n".join(lines)


def readings_table(path: Path) -> str:
    """One row per run of a ``--json`` file: each reading ``auto`` chooses among (the gate's average, ``given``,
    ``fitted``) with the labels it agreed with and its true figures, and the one chosen — what a rule for choosing
    is judged on (the true labels are read here, never by the product)."""
    lines = ["| set · presentation (items, wrong labels) | chosen | average (none) | given | fitted |",
             "|---|---|---|---|---|"]
    for out in _default_runs(path):
        choice = out.get("auto_choice") or {}
        agreed, refused = choice.get("agreement") or {}, choice.get("refused") or {}
        cells = []
        for mode, key in (("none", "gated"), ("given", "gated+given"), ("fitted", "gated+fitted")):
            if mode in agreed:
                cells.append(f"{agreed[mode]['agree']} of {agreed[mode]['of']}: {_short(out[key])}")
            else:
                cells.append("refused" if mode in refused else "not read")
        lines.append(f"| {_where(out)} | {_chosen(choice)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_table(path: Path) -> str:
    """One row per run of a ``--json`` file on the default path (the gate, then ``auto``): accuracy, the top
    answer's share, predicted ÷ true, AUROC / AP, the flags, the prompt with the largest top answer (collapse is
    read per prompt), the members the gate left out and the reading ``auto`` chose."""
    lines = ["| set · presentation (items, wrong labels; fresh calls) | accuracy | top answer | predicted ÷ true (min–max) | "
             "AUROC / AP | flags, precision / recall | prompts: largest top answer | health gate left out | reading |",
             "|---|---|---|---|---|---|---|---|---|"]
    for out in _default_runs(path):
        f = out["gated+auto"]
        ratios = list(f["ratios"].values())
        name, top = max(out["members"].items(), key=lambda kv: kv[1]["modal_share"])
        left = ", ".join(x["member"].rsplit("/", 1)[-1] for x in out["gate"]["left_out"]) or "none"
        choice = out.get("auto_choice") or {}
        reading = choice.get("chosen") or ("none (under 30 items)" if choice.get("note") else "none")
        lines.append(f"| {out['data_set']} · {out['presentation']} ({out['items']}, {out['planted']}; {out['llm_calls']}) | "
                     f"{_f(f['accuracy'])} | {f['modal']} {f['modal_share']:.0%} | {min(ratios):.2f}–{max(ratios):.2f} | "
                     f"{_f(f['auroc'])} / {_f(f['ap'])} | {f['flagged']}, {_f(f['flag_precision'])} / "
                     f"{_f(f['flag_recall'])} | {name} {top['modal']} {top['modal_share']:.0%} | {left} | {reading} |")
    return "\n".join(lines)


def _within_ratio(f: dict[str, Any]) -> bool:
    """The issue's bar for the class ratio: every class predicted within 1.5x of its true count."""
    return f["ratio_min"] >= 1 / RATIO_BAR and f["ratio_max"] <= RATIO_BAR


def _meets(f: dict[str, Any]) -> bool:
    """The issue's bar for the default flags: precision >= 0.5 at recall >= 0.5."""
    return (f["flag_precision"] or 0.0) >= 0.5 and (f["flag_recall"] or 0.0) >= 0.5


def threshold_table(path: Path, *, variant: str = "gated", floor: float = 0.6, key: str = "sweep") -> str:
    """Per threshold, each run's flags (precision / recall) under ``variant``, and on how many of the runs whose
    ensemble accuracy exceeds ``floor`` (the issue's: a judge below it is not expected to find errors) the bar is
    met: the table a default threshold is chosen on."""
    runs = [r for r in _runs(path) if variant in r.get(key, {})]
    names = [f"{r['data_set']} · {r['presentation']} ({r['items']}, acc {r[variant]['accuracy']:.2f})" for r in runs]
    form = "1 − P(given) >" if key == "sweep_against" else "top confidence >"
    lines = [f"| {form} ({variant}) | " + " | ".join(names) + f" | bar met (accuracy > {floor}) |",
             "|---|" + "---|" * (len(runs) + 1)]
    eligible = [r[variant]["accuracy"] > floor for r in runs]
    for t in (f"{x:.2f}" for x in THRESHOLDS):
        cells, met = [], 0
        for r, ok in zip(runs, eligible):
            f = r[key][variant][t]
            cells.append(f"{f['flagged']}, {_f(f['flag_precision'])} / {_f(f['flag_recall'])}")
            met += ok and _meets(f)
        lines.append(f"| {t} | " + " | ".join(cells) + f" | {met} of {sum(eligible)} |")
    return "\n".join(lines)


def _interval(count: int, nobs: int) -> str:
    """A proportion with its Clopper-Pearson 95 % interval (statsmodels), or ``-`` with nothing to count."""
    if not nobs:
        return "-"
    low, high = proportion_confint(count, nobs, alpha=0.05, method="beta")
    return f"{count / nobs:.2f} [{low:.2f}, {high:.2f}]"


def _pooled_runs(runs: list[dict[str, Any]], variant: str, floor: float) -> tuple[list[dict[str, Any]], int]:
    """The runs a set's pooled figure reads: one per presentation (its largest: smaller runs of a set are prefixes of
    the same file order), ``aliases`` left out where ``values`` is there with the same extras and as many items or
    more (the judge is shown the same text: the same answers, on a prefix of the same items), and none whose
    accuracy under ``variant`` is at or below ``floor`` (the issue's bar is not asked of a judge below it); also how
    many were left out under the floor."""
    largest: dict[tuple[str, str], dict[str, Any]] = {}
    for out in runs:
        key = (out["data_set"], out["presentation"])
        if key not in largest or out["items"] > largest[key]["items"]:
            largest[key] = out
    kept, below = [], 0
    for (data_set, presentation), out in largest.items():
        style, _, extras = presentation.partition("+")
        twin = largest.get((data_set, "values" + ("+" + extras if extras else "")))
        if style == "aliases" and twin is not None and twin["items"] >= out["items"]:
            continue
        if (out[variant]["accuracy"] or 0.0) <= floor:
            below += 1
            continue
        kept.append(out)
    return kept, below


def pooled_table(path: Path, *, variant: str = "gated+auto", floor: float = 0.6) -> str:
    """Per set (a natural sample apart), the runs of a ``--json`` file pooled under ``variant`` (the default path):
    flags' precision and recall over every run's flags and wrong labels, each with its 95 % interval, and the
    predicted ÷ true per class over every run's items (:func:`_pooled_runs` says which runs count).

    Why: one run of 64 items holds 13 wrong labels, so a flag more or less moves its precision or recall by
    0.04–0.08, and the bar (0.5 / 0.5) is met or missed inside the interval of either; pooled over presentations the
    set's figure is read from several hundred answers. The presentations of a set ask about the same items, so the
    intervals (which take the runs as independent) are narrower than the items alone would give; runs without
    per-class counts (written before the bench kept them) count in the flags, not the ratio."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for out in _runs(path):
        if variant in out and not out.get("prompts"):
            groups.setdefault(out["data_set"], []).append(out)
    lines = [f"| set (runs; items; wrong labels; runs at or below {floor} accuracy left out) | runs meeting: ratio / "
             "flags / both | flags | precision [95 %] | recall [95 %] | predicted ÷ true, pooled (min–max) |",
             "|---|---|---|---|---|---|"]
    for data_set, group in groups.items():
        runs, below = _pooled_runs(group, variant, floor)
        fs = [out[variant] for out in runs]
        flagged = sum(f["flagged"] for f in fs)
        hits = sum(round((f["flag_precision"] or 0.0) * f["flagged"]) for f in fs)
        wrong = sum(out["planted"] for out in runs)
        ratio_ok = [_within_ratio(f) for f in fs]
        flags_ok = [_meets(f) for f in fs]
        predicted: dict[str, float] = {}
        true: dict[str, int] = {}
        for f in fs:
            for label, n in (f.get("true_counts") or {}).items():
                true[label] = true.get(label, 0) + n
                predicted[label] = predicted.get(label, 0.0) + f["ratios"].get(label, 0.0) * n
        pooled = [predicted[label] / n for label, n in true.items()]
        ratio = f"{min(pooled):.2f}–{max(pooled):.2f}" if pooled else "-"
        lines.append(f"| {data_set} ({len(runs)}; {sum(out['items'] for out in runs)}; {wrong}; {below}) | "
                     f"{sum(ratio_ok)} / {sum(flags_ok)} / {sum(a and b for a, b in zip(ratio_ok, flags_ok))} | "
                     f"{flagged} | {_interval(hits, flagged)} | {_interval(hits, wrong)} | {ratio} |")
    return "\n".join(lines)


def _named(reach: dict[str, Any]) -> str:
    rows = {row["label"]: row for row in reach["classes"]}
    said = [f"{lab} {rows[lab]['predicted']} of {rows[lab]['labelled']} ({kind})"
            for kind in ("under", "over") for lab in reach[kind]]
    return "; ".join(said) or "none"


def reach_table(path: Path) -> str:
    """Run by run on the default path: the classes the summary names against the labels (predicted of labelled,
    :mod:`backend.scoring.class_reach`) beside predicted ÷ *true* and whether it meets the 1.5x bar; then how
    often the check named a class where the bar is missed and where it is met. Runs recorded before the check
    (no ``class_reach``) are left out."""
    lines = ["| set · presentation (items, wrong labels) | named against the labels (predicted of labelled) | "
             "predicted ÷ true (min–max) | ratio within 1.5x |", "|---|---|---|---|"]
    tally = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}  # (named, missed)
    for out in _default_runs(path):
        reach = out.get("class_reach")
        if not reach:
            continue
        f = out["gated+auto"]
        named, missed = bool(reach["under"] or reach["over"]), not _within_ratio(f)
        tally[named, missed] += 1
        lines.append(f"| {_where(out)} | {_named(reach)} | {f['ratio_min']:.2f}–{f['ratio_max']:.2f} | "
                     f"{'no' if missed else 'yes'} |")
    lines.append("")
    lines.append(f"Named on {tally[True, True]} of the {tally[True, True] + tally[False, True]} runs that miss the "
                 f"bar and on {tally[True, False]} of the {tally[True, False] + tally[False, False]} that meet it.")
    return "\n".join(lines)
