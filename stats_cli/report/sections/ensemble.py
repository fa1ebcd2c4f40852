"""The ensemble itself: agreement among models and among prompts, each member on gold, and Fig. 3.

Member ids are ``provider:model/prompt`` (:func:`backend.scoring.members.member_id`); the model is what
comes before the last slash. Like Nahum Table 3, "among prompts" is one model's prompts, and
"among models" compares each model's prompt-averaged label.
"""

from __future__ import annotations

import itertools
import random
import warnings

import numpy as np
from sklearn.metrics import f1_score

from backend.api import (REACH_FAMILIES, TIE_TOLERANCE, check_distribution, class_reach, disagrees, reach_lines,
                         resolve_threshold)

from ..agreement import AGREEMENT_COLUMNS, paradox_note, rater_agreement
from ..control import NO_CONTROL, control_items
from ..fmt import plural
from ..inputs import AuditData
from ..model import Figure, Section, Series, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "ensemble", "The ensemble"
MAX_SUBSETS = 20  # random member subsets per ensemble size when there are more combinations


def split_member(member_id: str) -> tuple[str, str]:
    """``("provider:model", "prompt")``; a member id without a slash is its own model with one prompt."""
    model, sep, prompt = member_id.rpartition("/")
    return (model, prompt) if sep else (member_id, "default")


def member_tensor(data: AuditData) -> tuple[list[str], np.ndarray]:
    """Member ids and an items × members × labels array of probabilities (NaN where a member failed)."""
    labels = list(data.spec.labels)
    ids = sorted({m.member_id for it in data.items for m in it.members if m.ok})
    index = {m: j for j, m in enumerate(ids)}
    probs = np.full((len(data.items), len(ids), len(labels)), np.nan)
    for i, it in enumerate(data.items):
        for m in it.members:
            if m.ok:
                try:  # stored member answers are normalised by the engine; one that is not counts as failed
                    row = check_distribution(m.probs, labels)
                except ValueError:
                    continue
                probs[i, index[m.member_id]] = [row[lab] for lab in labels]
    return ids, probs


def _labels_of(probs: np.ndarray, labels: list[str]) -> list[str | None]:
    """Argmax label per row (ties to the earlier class, like the ensemble); None where a member failed."""
    ok = ~np.isnan(probs).any(axis=-1)
    best = np.asarray(labels, dtype=object)[np.argmax(np.nan_to_num(probs, nan=-1.0), axis=-1)]
    return [lab if good else None for lab, good in zip(best.tolist(), ok.tolist())]


def _answers(item_ids: list[str], columns: dict[str, list[str | None]]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name, col in columns.items():
        for item, label in zip(item_ids, col):
            if label is not None:
                out.setdefault(item, {})[name] = label
    return out


def ensemble_section(data: AuditData, *, seed: int = 0) -> Section:
    """κ among prompts and models, member accuracy on gold, and detection F1 by ensemble size."""
    labels = list(data.spec.labels)
    ids, probs = member_tensor(data)
    if not ids:
        return pending(KEY, TITLE, "no member probabilities stored yet", sizes={"items": len(data.items)})
    item_ids = [str(it.id) for it in data.items]
    models: dict[str, list[int]] = {}
    for j, mid in enumerate(ids):
        models.setdefault(split_member(mid)[0], []).append(j)
    rows, notes = [], []
    for model, cols in models.items():
        if len(cols) >= 2:
            answers = _answers(item_ids, {split_member(ids[j])[1]: _labels_of(probs[:, j], labels) for j in cols})
            row = rater_agreement(f"{model} (different prompts)", answers, spec=data.spec)
            rows.append(row.cells())
            if note := paradox_note(row):
                notes.append(note)
    if len(models) >= 2:
        with warnings.catch_warnings():  # an item none of a model's prompts answered stays NaN -> None
            warnings.simplefilter("ignore", RuntimeWarning)
            per_model = {m: _labels_of(np.nanmean(probs[:, cols], axis=1), labels) for m, cols in models.items()}
        row = rater_agreement("different models (prompt-averaged)", _answers(item_ids, per_model), spec=data.spec)
        rows.append(row.cells())
    tables = []
    if rows:
        tables.append(Table.build("Agreement among ensemble members (Nahum Table 3)", AGREEMENT_COLUMNS, rows))
    gold = [data.gold(it)[0] for it in data.items]
    original = [it.original for it in data.items]
    control = control_items(data)
    acc_rows = []
    for j, mid in enumerate(ids):
        pred = _labels_of(probs[:, j], labels)
        on_orig = [(p, o) for p, o in zip(pred, original) if p is not None and o is not None]
        on_control = [(pred[c.index] == c.gold, c.weight) for c in control if pred[c.index] is not None]
        acc = float(np.average([r for r, _ in on_control], weights=[w for _, w in on_control])) if on_control else None
        acc_rows.append((mid, len(on_orig), _acc(on_orig), len(on_control), acc))
    if data.spec.family in REACH_FAMILIES:
        reach = class_reach(data.items, labels)
        tables.append(_reach_table(reach))
        notes.extend(reach_lines(reach))
    tables.append(Table.build("Each member's accuracy", ("member", "n (original)", "accuracy vs original",
                                                          "n (control sample)", "accuracy vs gold (design-weighted)"),
                              acc_rows))
    if not control:
        notes.append("Accuracy against gold: " + NO_CONTROL + ".")
    figures, values = [], {"members": len(ids), "models": len(models)}
    curve = size_curve(data, probs, seed=seed)
    stopped = sum(bool(getattr(it, "stopped_early", False)) for it in data.items)
    if stopped:
        notes.append(f"{stopped} of {plural(len(data.items), 'item')} stopped early (early exit: their last members were "
                     f"not asked): κ among members and accuracy rest on the members called, the F1-by-size curve "
                     f"on the {len(data.items) - stopped} items every member answered.")
    if curve is None:
        notes.append("Detection F1 by ensemble size: not shown — " + NO_CONTROL + ".")
    else:
        sizes, mean, low, high = curve
        notes.append(f"F1 by ensemble size rests on the {len(control)} settled items of the random control sample, "
                     "each weighted by 1/its inclusion probability (a design-weighted estimate of the project's F1).")
        tables.append(Table.build("Error detection F1 by ensemble size, control sample (Nahum Fig. 3)",
                                  ("members", "mean F1", "min F1", "max F1"),
                                  list(zip(sizes, mean, low, high))))
        figures.append(Figure("ensemble_size", "Error-detection F1 vs ensemble size (Fig. 3)", "line",
                              (Series("F1 (min–max band)", tuple(sizes), tuple(mean), tuple(low), tuple(high)),),
                              xlabel="members in the ensemble", ylabel="F1 (control sample, design-weighted)"))
        values["f1_by_size"] = dict(zip(sizes, mean))
    return Section(KEY, TITLE, Status.OK, sizes={"members": len(ids), "models": len(models), "items": len(data.items),
                                                  "items with gold": sum(g is not None for g in gold),
                                                  "control sample settled": len(control)},
                   tables=tuple(tables), figures=tuple(figures), notes=tuple(notes), values=values)


def _reach_table(reach: dict) -> Table:
    """Per class, the items that carry it and the items the ensemble's verdicts predict it for: a class the
    verdicts under-read cannot have its wrong labels flagged (:mod:`backend.scoring.class_reach`)."""
    def reading(row: dict) -> str:
        if row["labelled"] < reach["min_labels"]:
            return f"not judged (fewer than {reach['min_labels']} labels)"
        return ("under-read" if row["label"] in reach["under"] else
                "over-read" if row["label"] in reach["over"] else f"within {reach['bar']:g}x")

    return Table.build(f"The verdicts per class against the project's labels ({reach['items']} labelled items)",
                       ("label", "items labelled so", "items predicted so", "predicted ÷ labelled", "reading"),
                       [(row["label"], row["labelled"], row["predicted"],
                         round(row["predicted"] / row["labelled"], 2) if row["labelled"] else None, reading(row))
                        for row in reach["classes"]])


def _acc(pairs: list[tuple[str, str]]) -> float | None:
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def size_curve(data: AuditData, probs: np.ndarray, *, seed: int = 0):
    """Mean/min/max design-weighted F1 of flags vs confirmed errors over member subsets, on the control sample."""
    labels = list(data.spec.labels)
    threshold = resolve_threshold(data.spec, data.threshold)
    # early exit left some members unasked on these items: a subset's F1 needs every member's answer
    rows = [c for c in control_items(data) if c.item.original is not None
            and not getattr(c.item, "stopped_early", False)]
    if not rows:
        return None
    idx = np.array([c.index for c in rows])
    weight = np.array([c.weight for c in rows])
    truth = np.array([data.is_error(c.item, c.gold) for c in rows])
    if not truth.any():
        return None
    orig_idx = np.array([labels.index(c.item.original) if c.item.original in labels else -1 for c in rows])
    sub = probs[idx]
    n_members = sub.shape[1]
    # the task's own flag rule (backend.scoring.ensemble.disagrees), tabulated once: prediction x original
    rule = np.array([[disagrees(p, o, data.spec) for o in labels] for p in labels])
    rng = random.Random(seed)
    sizes, mean, low, high = [], [], [], []
    for size in range(1, n_members + 1):
        combos = list(itertools.combinations(range(n_members), size))
        if len(combos) > MAX_SUBSETS:
            combos = rng.sample(combos, MAX_SUBSETS)
        scores = []
        for combo in combos:
            with warnings.catch_warnings():  # an item none of the subset answered stays NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                avg = np.nanmean(sub[:, list(combo)], axis=1)
            known = ~np.isnan(avg).any(axis=1)
            pred = np.where(known, np.nanargmax(np.nan_to_num(avg, nan=-1.0), axis=1), -1)
            conf = np.where(known, np.nan_to_num(avg).max(axis=1), 0.0)
            disagree = rule[np.clip(pred, 0, None), np.clip(orig_idx, 0, None)]
            top_two = np.sort(np.nan_to_num(avg), axis=1)[:, -2:]
            tie = (top_two[:, 1] - top_two[:, 0]) <= TIE_TOLERANCE  # a tie is never a confident flag
            flag = known & disagree & ~tie & (conf > threshold) & (orig_idx >= 0) & (pred >= 0)
            scores.append(f1_score(truth, flag, sample_weight=weight, zero_division=0.0))
        sizes.append(size)
        mean.append(float(np.mean(scores)))
        low.append(float(np.min(scores)))
        high.append(float(np.max(scores)))
    return sizes, mean, low, high


class EnsembleSection(ReportSection):
    key, title, order = KEY, TITLE, 50
    needs = ("one_label",)

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return ensemble_section(data, seed=options.seed)
