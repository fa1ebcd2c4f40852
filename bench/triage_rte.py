"""Triage on RTE (Snow et al. 2008): named workers with expert gold, the truth model's home ground.

ChaosNLI's crowd is five anonymous positions, so its truth model pools them; RTE's 800 items carry 10
labels each from 164 named Mechanical Turk workers and an expert gold label (Snow, O'Connor, Jurafsky & Ng,
EMNLP 2008; ``../shared/data/snow2008/``, read there, never copied here). No text ships with the labels,
so the only sources are the annotators: no judge, no confident-learning member.

The set simulates a project labelled by ``k`` workers per item (the first ``k`` of the 10 in file order):
the original label is their majority (``k`` odd: no ties), an *error* is an original label that differs
from the gold. Today's routing without a judge sends every item whose annotators disagree to the experts;
the triage sends only its likely errors. No reference for *ambiguous* exists here (the gold is one
expert's), so only the error class is measured. Run through ``bench/bench_triage.py --rte``.
"""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

from backend.review.triage import LIKELY_ERROR, ItemEvidence, triage

RTE_LABELS = ["0", "1"]


def load_rte(path: Path, *, k: int) -> list[dict]:
    """Items with their first ``k`` workers' labels (worker id -> label), the majority as original, the gold."""
    if k < 1 or k % 2 == 0:
        raise ValueError("k must be odd (a majority of two labels can tie)")
    by_item: dict[str, list[dict]] = defaultdict(list)
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            by_item[row["orig_id"]].append(row)
    rows = []
    for item, labels in by_item.items():
        first = labels[:k]
        said = {r["!amt_worker_ids"]: r["response"] for r in first}
        votes = Counter(r["response"] for r in first)
        rows.append({"id": item, "annotations": said, "old": max(RTE_LABELS, key=lambda lab: votes[lab]),
                     "gold": labels[0]["gold"]})
    return rows


def evaluate_rte(rows: list[dict], *, pool: bool, anchored: float, seed: int) -> dict:
    """Triage the split items (annotators disagree); ``anchored`` of all items get the gold as settled verdicts
    and are left out of every figure."""
    rng = np.random.default_rng(seed)
    anchors = {r["id"]: r["gold"] for r in rows if rng.random() < anchored}
    evidence = [ItemEvidence(r["id"], r["old"], r["annotations"]) for r in rows]
    flagged = [r["id"] for r in rows if len(set(r["annotations"].values())) > 1 and r["id"] not in anchors]
    result = triage(evidence, labels=RTE_LABELS, flagged=flagged, pool_annotators=pool, anchors=anchors)
    test = [r for r in rows if r["id"] not in anchors]
    errors = {r["id"] for r in test if r["old"] != r["gold"]}
    likely = {t.item for t in result.by_class(LIKELY_ERROR)}
    found_before, found_after = len(set(flagged) & errors), len(likely & errors)
    y = np.array([r["id"] in errors for r in test])
    post_wrong = [1.0 - result.posterior[r["id"]][r["old"]] for r in test]
    crowd_wrong = [1.0 - list(r["annotations"].values()).count(r["old"]) / len(r["annotations"]) for r in test]
    per_worker = Counter(w for r in rows for w in r["annotations"])
    return {
        "variant": {"annotators": "pooled" if pool else "per worker", "anchored": len(anchors)},
        "items": len(test), "errors": len(errors), "flagged": len(flagged),
        "workers": len(per_worker), "median_items_per_worker": int(np.median(list(per_worker.values()))),
        "thresholds": result.to_json()["thresholds"],
        "likely_error": precision_recall(likely, errors),
        "likely_error_among_flagged": precision_recall(likely, errors & set(flagged)),
        "classes": dict(Counter(t.klass for t in result.items)),
        "routed_per_error_before": len(flagged) / found_before if found_before else None,
        "routed_per_error_after": len(likely) / found_after if found_after else None,
        "errors_found_before": found_before, "errors_found_after": found_after,
        "ap_posterior": float(average_precision_score(y, post_wrong)) if y.any() else None,
        "ap_crowd_share": float(average_precision_score(y, crowd_wrong)) if y.any() else None,
        "posterior_accuracy": float(np.mean([max(result.posterior[r["id"]], key=result.posterior[r["id"]].get)
                                             == r["gold"] for r in test])),
        "majority_accuracy": float(np.mean([r["old"] == r["gold"] for r in test])),
    }


def precision_recall(said: set[str], truth: set[str]) -> dict:
    tp = len(said & truth)
    return {"said": len(said), "true": len(truth), "tp": tp, "precision": tp / len(said) if said else None,
            "recall": tp / len(truth) if truth else None}


def rte_table(name: str, out: dict) -> str:
    def f(x) -> str:
        return "-" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)

    lines = [f"== {name} ({out['variant']['annotators']} annotators, {out['variant']['anchored']} anchored): "
             f"{out['items']} items, {out['errors']} errors, {out['flagged']} split (today's routing); "
             f"{out['workers']} workers, median {out['median_items_per_worker']} items each; "
             f"thresholds from {out['thresholds']['source']}; classes {out['classes']}",
             f"{'measure':44} {'said':>6} {'tp':>5} {'precision':>10} {'recall':>8}"]
    for key in ("likely_error", "likely_error_among_flagged"):
        m = out[key]
        lines.append(f"{key:44} {m['said']:>6} {m['tp']:>5} {f(m['precision']):>10} {f(m['recall']):>8}")
    lines.append(f"items to experts per confirmed error: before {f(out['routed_per_error_before'])} "
                 f"({out['errors_found_before']} found), after {f(out['routed_per_error_after'])} "
                 f"({out['errors_found_after']} found)")
    lines.append(f"AP of errors: posterior {f(out['ap_posterior'])}, crowd share {f(out['ap_crowd_share'])}; "
                 f"accuracy against gold: posterior {f(out['posterior_accuracy'])}, majority {f(out['majority_accuracy'])}")
    return "\n".join(lines)
