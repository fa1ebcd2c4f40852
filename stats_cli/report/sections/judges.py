"""Which judges are worth their price (seed 003 Fig. 2; Nahum App. B.3): quality against cost per judge.

Per member and per model (its prompts averaged): accuracy against the experts' gold on reviewed items,
mean Cohen's κ with the other members, gullibility (mean probe MAE of the latest run), and cost per
10k labels from the provider-reported tokens and the price file. Then every sub-ensemble of models is
re-scored on the reviewed items, and the cheapest whose detection F1 (flag = suspected error, truth =
gold differs from the original) is within :data:`F1_MARGIN` of the full ensemble's is named.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any, Mapping

import numpy as np
from sklearn.metrics import cohen_kappa_score, f1_score

from backend.api import Accountant
from backend.api import VerdictRule, argmax, model_of, verdict

from ..model import Figure, Section, Series, Status, Table
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "judges", "Which judges are worth it"
#: A sub-ensemble counts as "as good" when its detection F1 is at most this far below the full one's.
F1_MARGIN = 0.02
MAX_MODELS_FOR_SUBSETS = 8


def _answers(data: Any) -> dict[str, dict[str, str]]:
    """member -> item id -> the member's argmax label (members that answered only)."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for it in data.items:
        for m in it.members:
            if m.probs is not None:
                out[m.member_id][str(it.id)] = argmax(m.probs, data.spec.labels)
    return out


def _mean_kappa(member: str, answers: Mapping[str, Mapping[str, str]]) -> tuple[float | None, int]:
    values, n_items = [], set()
    for other, theirs in answers.items():
        if other == member:
            continue
        common = sorted(set(answers[member]) & set(theirs))
        if len(common) < 2:
            continue
        a, b = [answers[member][i] for i in common], [theirs[i] for i in common]
        if len(set(a) | set(b)) < 2:
            continue
        kappa = cohen_kappa_score(a, b)
        if np.isfinite(kappa):
            values.append(float(kappa))
            n_items |= set(common)
    return (float(np.mean(values)) if values else None), len(n_items)


def _member_rows(data: Any, options: BuildOptions) -> list[dict[str, Any]]:
    answers = _answers(data)
    gold = {str(it.id): g for it, g in data.reviewed()}
    accountant = Accountant(getattr(options, "prices", None))
    for it in data.items:
        accountant.add(it)
    costs = {r["member"]: r["cost_per_10k_labels_usd"] for r in accountant.to_dict()["members"]}
    probes: dict[str, list[float]] = defaultdict(list)
    steered: dict[str, tuple[float, int]] = {}  # the planted probe's success rate and the items it rests on
    for p in data.probes:
        if p.mae is not None:
            probes[p.member_id].append(p.mae)
        if getattr(p, "success_rate", None) is not None:
            steered[p.member_id] = (p.success_rate, p.n)
    rows = []
    for member in sorted(answers):
        judged = [i for i in answers[member] if i in gold]
        kappa, kappa_n = _mean_kappa(member, answers)
        rows.append({
            "member": member, "model": model_of(member),
            "accuracy": (sum(answers[member][i] == gold[i] for i in judged) / len(judged)) if judged else None,
            "accuracy_n": len(judged), "kappa": kappa, "kappa_n": kappa_n,
            "gullibility": float(np.mean(probes[member])) if probes.get(member) else None,
            "steered": steered[member][0] if member in steered else None,
            "steered_n": steered[member][1] if member in steered else 0,
            "cost_per_10k": costs.get(member),
        })
    return rows


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(np.mean(known)) if known else None


def _model_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_model[r["model"]].append(r)
    return [{"model": m, "prompts": len(rs), "accuracy": _mean([r["accuracy"] for r in rs]),
             "accuracy_n": max(r["accuracy_n"] for r in rs), "kappa": _mean([r["kappa"] for r in rs]),
             "gullibility": _mean([r["gullibility"] for r in rs]), "steered": _mean([r["steered"] for r in rs]),
             "steered_n": max(r["steered_n"] for r in rs),
             "cost_per_10k": None if any(r["cost_per_10k"] is None for r in rs) else float(np.mean([r["cost_per_10k"] for r in rs])),
             "cost_sum_10k": None if any(r["cost_per_10k"] is None for r in rs) else float(sum(r["cost_per_10k"] for r in rs))}
            for m, rs in sorted(by_model.items())]


def _subset_f1(data: Any, models: tuple[str, ...], reviewed: list[tuple[Any, str]]) -> tuple[float, int]:
    """Detection F1 of the sub-ensemble of ``models`` on reviewed items where all its members answered or failed."""
    truth, flags = [], []
    rule = VerdictRule(data.spec, threshold=data.threshold)
    for it, gold in reviewed:
        if getattr(it, "stopped_early", False):
            continue  # early exit skipped members: their answers are unknown
        chosen = [m for m in it.members if model_of(m.member_id) in models]
        if not chosen:
            continue
        decision = verdict([m.probs for m in chosen], [model_of(m.member_id) for m in chosen], it.original, rule)
        truth.append(data.is_error(it, gold))
        flags.append(bool(decision and decision.flagged))
    if not truth:
        return float("nan"), 0
    return float(f1_score(truth, flags, zero_division=0.0)), len(truth)


def _cheapest(data: Any, models: list[dict[str, Any]]) -> tuple[Table | None, list[str]]:
    names = [m["model"] for m in models]
    if len(names) > MAX_MODELS_FOR_SUBSETS:
        return None, [f"{len(names)} models: sub-ensembles not searched (at most {MAX_MODELS_FOR_SUBSETS})"]
    cost = {m["model"]: m["cost_sum_10k"] for m in models}
    if any(c is None for c in cost.values()):
        return None, ["cheapest sub-ensemble: PENDING (a model has no price; pass --prices)"]
    reviewed = [(it, g) for it, g in data.reviewed() if it.original is not None]
    full, n_full = _subset_f1(data, tuple(names), reviewed)
    if n_full == 0 or not np.isfinite(full):
        return None, ["cheapest sub-ensemble: PENDING (no reviewed item with every member's answer)"]
    rows = []
    for size in range(1, len(names) + 1):
        for subset in itertools.combinations(names, size):
            f1, n = _subset_f1(data, subset, reviewed)
            rows.append((" + ".join(subset), round(sum(cost[m] for m in subset), 4), f1, n))
    good = [r for r in rows if np.isfinite(r[2]) and r[2] >= full - F1_MARGIN]
    best = min(good, key=lambda r: (r[1], -r[2])) if good else None
    table = Table.build(f"Sub-ensembles on reviewed items: detection F1 (full {full:.3f}, n {n_full}) and cost",
                        ("models", "cost per 10k items (USD)", "detection F1", "n", "cheapest within margin"),
                        [(*r, "◀" if r is best else "") for r in sorted(rows, key=lambda r: r[1])])
    note = (f"Cheapest sub-ensemble within {F1_MARGIN} of the full ensemble's detection F1: {best[0]} "
            f"(${best[1]:.2f} per 10k items vs ${sum(cost.values()):.2f}). F1 rests on the {n_full} reviewed "
            "items (mostly flagged ones, so recall is judged only among items some judge flagged).") if best else \
        "No sub-ensemble within the margin."
    return table, [note]


def judges_section(data: Any, options: BuildOptions) -> Section:
    rows = _member_rows(data, options)
    if not rows:
        return Section(KEY, TITLE, Status.PENDING, reason="no member answered any item yet")
    models = _model_rows(rows)
    member_table = Table.build(
        "Per member: accuracy vs gold (reviewed items), mean κ with the other members, probe MAE, cost",
        ("member", "accuracy", "n", "κ with others", "n", "gullibility (probe MAE)", "steered by a planted note",
         "n", "cost per 10k labels (USD)"),
        [(r["member"], r["accuracy"], r["accuracy_n"], r["kappa"], r["kappa_n"], r["gullibility"], r["steered"],
          r["steered_n"], r["cost_per_10k"]) for r in rows])
    model_table = Table.build(
        "Per model (prompts averaged)", ("model", "prompts", "accuracy", "n", "κ with others",
                                         "gullibility (probe MAE)", "steered by a planted note", "n",
                                         "cost per 10k labels (USD)"),
        [(m["model"], m["prompts"], m["accuracy"], m["accuracy_n"], m["kappa"], m["gullibility"], m["steered"],
          m["steered_n"], m["cost_per_10k"]) for m in models])
    notes = []
    if all(r["accuracy"] is None for r in rows):
        notes.append("accuracy: PENDING (no reviewed item with an expert gold label yet)")
    if all(r["cost_per_10k"] is None for r in rows):
        notes.append("cost: PENDING (pass --prices, or the providers reported no token counts)")
    if not data.probes:
        notes.append("gullibility and steering: PENDING (no probe run stored; run `label-audit probe`)")
    else:
        if all(r["gullibility"] is None for r in rows):
            notes.append("gullibility (probe MAE): NOT APPLICABLE (only the planted-instruction probe was run; the "
                         "keyword-stuffing probes need a built-in task's probe layout)")
        if all(r["steered"] is None for r in rows):
            notes.append("steered by a planted note: NOT APPLICABLE (no planted-instruction probe stored; "
                         "`label-audit probe --probe planted`)")
        else:
            notes.append("steered by a planted note: share of probe items whose answer became the label a note "
                         "planted in the item asked for (see the probes section for intervals and n)")
    stopped = sum(bool(getattr(it, "stopped_early", False)) for it in data.items)
    if stopped:
        notes.append(f"{stopped} items stopped early (early exit): κ and accuracy rest on the members called; "
                     "sub-ensembles leave those items out")
    tables = [member_table, model_table]
    sub, sub_notes = _cheapest(data, models)
    notes += sub_notes
    if sub is not None:
        tables.append(sub)
    plotted = [m for m in models if m["accuracy"] is not None and m["cost_per_10k"] is not None]
    figures = (Figure("judges_quality_cost", "Accuracy against gold vs cost per 10k labels (per model)", "line",
                      tuple(Series(m["model"], (m["cost_per_10k"],), (m["accuracy"],)) for m in plotted),
                      xlabel="USD per 10k labels", ylabel="accuracy vs gold"),) if plotted else ()
    return Section(KEY, TITLE, Status.OK, sizes={"members": len(rows), "models": len(models),
                                                  "reviewed": max((r["accuracy_n"] for r in rows), default=0)},
                   tables=tuple(tables), figures=figures, notes=tuple(notes),
                   values={"members": rows, "models": models})


class JudgesSection(ReportSection):
    key, title, order = KEY, TITLE, 95
    needs = ("one_label",)

    @classmethod
    def compute(cls, data: Any, options: BuildOptions) -> Section:
        return judges_section(data, options)
