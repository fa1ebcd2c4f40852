"""The ensemble against gold: quality by ensemble size (Nahum Fig. 3, left) and each model's who-is-right (Fig. 13).

* Fig. 3 (left): for random member subsets of each size, the averaged probabilities scored against the
  gold label of every settled item — ROC AUC of the positive class's probability for binary tasks,
  Pearson correlation of the predicted class with gold for ordinal ones (Nahum App. A.4.2). The
  report's ensemble section has the right panel (error-detection F1).
* Fig. 13: each model (its prompts' probabilities averaged) on the reviewed items where *it* disagrees
  with the original label, cut into quantile bins of its own confidence (merged below the minimum n) (the paper adjusts bin edges
  per model): how often the experts side with the model vs the original (ordinal: who is closer).

Fig. 3 (left) rests on the random control sample only, design-weighted (:mod:`stats_cli.report.control`):
items the ensemble agrees with have the original as gold (Nahum's rule), which flatters the full
ensemble most — not every subset alike — so without a control sample the figure is not shown.
"""

from __future__ import annotations

import itertools
import random
import warnings

import numpy as np
from sklearn.metrics import roc_auc_score

from stats_cli.stats.confidence_bins import MIN_BIN, confidence_bins

from ..control import NO_CONTROL, control_items
from ..inputs import AuditData
from ..model import Figure, Section, Series, Status, Table, pending
from ..registry import BuildOptions, ReportSection
from .confidence import bin_range
from .ensemble import MAX_SUBSETS, member_tensor, split_member

KEY, TITLE = "ensemble_gold", "The ensemble against gold"
BINS = 5


def _wpearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Weighted Pearson r (numpy's weighted covariance; scipy's pearsonr takes no weights)."""
    cov = np.cov(x, y, aweights=w)
    return float(cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]))


def _score(avg: np.ndarray, gold_idx: np.ndarray, weight: np.ndarray, ordinal: bool, positive: int) -> float | None:
    known = ~np.isnan(avg).any(axis=1)
    if known.sum() < 2:
        return None
    avg, gold_idx, weight = avg[known], gold_idx[known], weight[known]
    if ordinal:
        pred = np.argmax(avg, axis=1)
        if np.ptp(pred) == 0 or np.ptp(gold_idx) == 0:
            return None  # a constant column has no correlation
        return _wpearson(pred.astype(float), gold_idx.astype(float), weight)
    truth = gold_idx == positive
    if truth.all() or not truth.any():
        return None
    return float(roc_auc_score(truth, avg[:, positive], sample_weight=weight))


def quality_by_size(data: AuditData, probs: np.ndarray, *, seed: int = 0) -> list[tuple[int, int, float, float, float]]:
    """(size, subsets, mean, min, max) of design-weighted ROC AUC (binary) or Pearson r (ordinal) on the control sample."""
    labels = list(data.spec.labels)
    rows = [c for c in control_items(data) if c.gold in labels]
    if len(rows) < 2:
        return []
    idx = np.array([c.index for c in rows])
    gold_idx = np.array([labels.index(c.gold) for c in rows])
    weight = np.array([c.weight for c in rows])
    sub = probs[idx]
    ordinal = data.spec.task_family.ordered
    positive = labels.index(data.spec.positive_label) if not ordinal and data.spec.positive_label in labels else -1
    rng = random.Random(seed)
    out = []
    for size in range(1, sub.shape[1] + 1):
        combos = list(itertools.combinations(range(sub.shape[1]), size))
        if len(combos) > MAX_SUBSETS:
            combos = rng.sample(combos, MAX_SUBSETS)
        with warnings.catch_warnings():  # items no member of a subset answered stay NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            scores = [s for c in combos
                      if (s := _score(np.nanmean(sub[:, list(c)], axis=1), gold_idx, weight, ordinal, positive))
                      is not None]
        if scores:
            out.append((size, len(scores), float(np.mean(scores)), float(np.min(scores)), float(np.max(scores))))
    return out


def model_who_is_right(data: AuditData, ids: list[str], probs: np.ndarray, *, seed: int = 0):
    """Per model: confidence bins over the reviewed items where that model disagrees with the original."""
    labels = list(data.spec.labels)
    ordinal = data.spec.task_family.ordered
    position = {str(it.id): i for i, it in enumerate(data.items)}
    reviewed = [(position[str(it.id)], it, gold) for it, gold in data.reviewed() if it.original is not None]
    models: dict[str, list[int]] = {}
    for j, mid in enumerate(ids):
        models.setdefault(split_member(mid)[0], []).append(j)
    out = {}
    for model, cols in sorted(models.items()):
        cols_probs = probs[:, cols]
        picked = []
        for i, it, gold in reviewed:
            if np.isnan(cols_probs[i]).all():
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                avg = np.nanmean(cols_probs[i], axis=0)
            pred = labels[int(np.argmax(avg))]
            if pred != it.original:
                picked.append((it.original, pred, float(avg.max()), gold))
        if picked:
            out[model] = confidence_bins(*zip(*picked), bins=BINS, resamples=200, seed=seed,
                                         order=labels if ordinal else None)
    return out


def ensemble_gold_section(data: AuditData, *, seed: int = 0) -> Section:
    """Fig. 3 (left) and Fig. 13 tables and plots; pending until items have gold labels."""
    ids, probs = member_tensor(data)
    settled = sum(1 for it in data.items if data.gold(it)[0] is not None)
    sizes = {"members": len(ids), "items with gold": settled, "reviewed by experts": len(data.reviewed()),
             "control sample settled": len(control_items(data))}
    if not ids or not settled:
        return pending(KEY, TITLE, "needs member probabilities and settled gold labels", sizes=sizes)
    ordinal = data.spec.task_family.ordered
    metric = "Pearson r" if ordinal else "ROC AUC"
    tables, figures, notes = [], [], []
    curve = quality_by_size(data, probs, seed=seed)
    if curve:
        tables.append(Table.build(f"{metric} against gold by ensemble size (Nahum Fig. 3, left)",
                                  ("members", "subsets", f"mean {metric}", "min", "max"), curve))
        figures.append(Figure("ensemble_size_gold", f"{metric} against gold vs ensemble size (Fig. 3, left)", "line",
                              (Series(f"{metric} (min–max band)", tuple(c[0] for c in curve), tuple(c[2] for c in curve),
                                      tuple(c[3] for c in curve), tuple(c[4] for c in curve)),),
                              xlabel="members in the ensemble", ylabel=f"{metric} vs gold"))
        notes.append(f"{metric} rests on the {len(control_items(data))} settled items of the random control sample, "
                     "each weighted by 1/its inclusion probability.")
    elif not control_items(data):
        notes.append(f"{metric} by ensemble size: not shown — {NO_CONTROL}.")
    else:
        notes.append(f"{metric} by ensemble size: not computable yet (control-sample gold labels of one class only).")
    per_model = model_who_is_right(data, ids, probs, seed=seed)
    third = "equal" if ordinal else "neither"
    rows = [(model, b.index, bin_range(b), b.n, b.shares["llm"].value,
             b.shares["original"].value, b.shares[third].value) for model, bins in per_model.items() for b in bins]
    small = {m: sum(b.n for b in bins) for m, bins in per_model.items() if sum(b.n for b in bins) < MIN_BIN}
    if small:
        notes.append("Who-is-right plot: " + "; ".join(f"{m} left out — {n} reviewed disagreement{'s' if n != 1 else ''}"
                                                        for m, n in small.items())
                     + f", fewer than the {MIN_BIN} a bin needs (the table still lists them).")
    if rows:
        head = ("LLM closer", "original closer", "equally close") if ordinal else ("LLM right", "original right", "neither")
        tables.append(Table.build("Who is right, per model, by its own confidence bins (Nahum Fig. 13)",
                                  ("model", "bin", "confidence", "n", *head), rows))
        figures.append(Figure("model_who_is_right", "Experts side with the model, by its confidence bin (Fig. 13)",
                              "line", tuple(Series(model, tuple(b.index for b in bins),
                                                   tuple(b.shares["llm"].value for b in bins))
                                            for model, bins in per_model.items() if model not in small),
                              xlabel="model's own confidence bin (1 = least confident; quantile bins)",
                              ylabel="share of reviewed items"))
        if len(small) == len(per_model) or all(len(bins) < 2 for bins in per_model.values()):
            figures.pop()
            notes.append("Who-is-right per model: no plot — each model's reviewed disagreements fill one bin only, "
                         "so there is no line to draw (the table has the figures).")
    else:
        notes.append("Per-model who-is-right: pending — no reviewed item where a model disagrees with the original.")
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=tuple(tables), figures=tuple(figures),
                   notes=tuple(notes), values={"by_size": [dict(zip(("size", "subsets", "mean", "min", "max"), c))
                                                            for c in curve],
                                                "per_model": {m: [b.to_json() for b in bins] for m, bins in per_model.items()}})


class EnsembleGoldSection(ReportSection):
    key, title, order = KEY, TITLE, 55
    needs = ("one_label",)

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return ensemble_gold_section(data, seed=options.seed)
