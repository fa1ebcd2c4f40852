"""Triage on ChaosNLI-SNLI: precision and recall of *likely error* and *ambiguous*, experts' load, posterior AP.

Data: ChaosNLI (Nie et al. 2020, CC BY-NC 4.0, https://github.com/easonnie/chaos_nli), SNLI part, 1,514
items, each with its 5 original SNLI labels and 100 new votes. The 5 original labels are the crowd
(annotator 1..5 by position: SNLI's workers are not named, so a "source" is a position, not a person).
References, from the 100 votes only (never seen by the triage):

- *error*: the old majority label differs from the 100-vote majority and that majority holds >= 0.8;
- *ambiguous*: the 100-vote maximum share is below 0.6 (Nie et al.'s low-agreement items; the entropy
  cut would rank the same items, the share is easier to read).

A second set is built: the clear items (100-vote share >= 0.8 and old majority equal to it) get planted
errors (3 of the 5 annotator labels set to one other label, so the old majority is wrong, in 15 % of
them), the ambiguous items are kept as they are. Sources of the truth model: the annotators and the
confident-learning member (``cleanlab:tfidf-logreg``, out-of-fold probabilities fitted on the old
majority labels); ``--judges FILE`` adds the LLM judges of a ``label-audit score --out`` file run on a
subset (labels spelt entailment/neutral/contradiction; each member is one more source on those items, and
the figures are also given on that subset). Flagged = the ensemble's top label differs from the
old label (today's routing: every flagged item goes to the experts).

``--rte FILE`` adds Snow et al.'s RTE crowd (named workers, expert gold, no text: annotators only; see
``bench/triage_rte.py``) with 3 and 5 workers per item, the truth model pooled and per worker.

Usage: ``python bench/bench_triage.py --data <chaosNLI_snli.jsonl> [--rte <rte.standardized.tsv>] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

from backend.confident.classifier import out_of_fold_probs
from backend.review.triage import AMBIGUOUS, GUIDELINE_GAP, LIKELY_ERROR, ItemEvidence, triage
# beside this file (bench/ is on the path when run)
from triage_rte import evaluate_rte, load_rte, precision_recall, rte_table

LABELS = ["e", "n", "c"]
LONG = {"entailment": "e", "neutral": "n", "contradiction": "c"}
CL = "cleanlab:tfidf-logreg"


def load(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if len(row.get("old_labels") or []) < 2:
            continue
        counts = np.array(row["label_count"], dtype=float)
        share = counts / counts.sum()
        rows.append({"id": row["uid"], "premise": row["example"]["premise"],
                     "hypothesis": row["example"]["hypothesis"],
                     "annotations": [LONG[x] for x in row["old_labels"]], "old": row["old_label"],
                     "top": LABELS[int(share.argmax())], "top_share": float(share.max())})
    return rows


def majority(labels: list[str]) -> str:
    counts = Counter(labels)
    return max(LABELS, key=lambda lab: (counts[lab], -LABELS.index(lab)))


def planted(rows: list[dict], *, rate: float, seed: int) -> list[dict]:
    """Clear items with a planted wrong majority in ``rate`` of them, plus the ambiguous items unchanged."""
    rng = np.random.default_rng(seed)
    out = []
    for row in rows:
        if row["top_share"] < 0.6:
            out.append(dict(row, planted=False))
        elif row["top_share"] >= 0.8 and row["old"] == row["top"]:
            if rng.random() < rate:
                wrong = str(rng.choice([lab for lab in LABELS if lab != row["top"]]))
                ann = list(row["annotations"])
                for k in rng.choice(5, size=3, replace=False):
                    ann[k] = wrong
                out.append(dict(row, annotations=ann, old=majority(ann), planted=True))
            else:
                out.append(dict(row, planted=False))
    return out


def read_judges(path: Path) -> dict[str, dict[str, dict[str, float]]]:
    """Item id -> member id -> distribution over e/n/c, from a ``label-audit score --out`` JSONL file."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        members = {m["member_id"]: {LONG[k]: float(v) for k, v in (m.get("probs") or {}).items() if k in LONG}
                   for m in row.get("members", ()) if m.get("probs")}
        if members:
            out[str(row["id"])] = members
    return out


def cl_member(rows: list[dict]) -> np.ndarray:
    inputs = [{"premise": r["premise"], "hypothesis": r["hypothesis"]} for r in rows]
    return out_of_fold_probs(inputs, [LABELS.index(r["old"]) for r in rows], LABELS, classifier="tfidf-logreg")


def evaluate(rows: list[dict], errors: set[str], ambiguous: set[str], *, pool: bool = True, anchored: float = 0.0,
             seed: int = 0, judges: dict[str, dict] | None = None) -> dict:
    """Triage ``rows``; ``anchored`` of them (a seeded random control sample) get the 100-vote label as the
    experts' gold and are left out of every figure (they are the review's verdicts, not data under test)."""
    probs = cl_member(rows)
    rng = np.random.default_rng(seed)
    anchors = {r["id"]: r["top"] for r in rows if rng.random() < anchored}
    evidence, avg_wrong, flagged = [], {}, []
    for r, p in zip(rows, probs):
        members = {CL: dict(zip(LABELS, map(float, p)))}
        members.update((judges or {}).get(r["id"], {}))
        mean = np.mean([[m.get(lab, 0.0) for lab in LABELS] for m in members.values()], axis=0)
        avg_wrong[r["id"]] = 1.0 - float(mean[LABELS.index(r["old"])])
        if LABELS[int(mean.argmax())] != r["old"]:
            flagged.append(r["id"])
        evidence.append(ItemEvidence(r["id"], r["old"], {f"a{k + 1}": lab for k, lab in enumerate(r["annotations"])},
                                     members))
    result = triage(evidence, labels=LABELS, flagged=flagged, pool_annotators=pool, anchors=anchors)
    keep = [k for k, r in enumerate(rows) if r["id"] not in anchors]
    rows, errors, ambiguous = [rows[k] for k in keep], errors - set(anchors), ambiguous - set(anchors)
    flagged = [i for i in flagged if i not in anchors]
    ids = [r["id"] for r in rows]
    y = np.array([i in errors for i in ids])
    post_wrong = [1.0 - result.posterior[i][r["old"]] for i, r in zip(ids, rows)]
    crowd_wrong = [1.0 - r["annotations"].count(r["old"]) / len(r["annotations"]) for r in rows]
    likely = {t.item for t in result.by_class(LIKELY_ERROR)} - set(anchors)
    amb = {t.item for t in result.items if t.klass in (AMBIGUOUS, GUIDELINE_GAP)} - set(anchors)
    flagged_set = set(flagged)
    found_before, found_after = len(flagged_set & errors), len(likely & errors)
    return {
        "variant": {"annotators": "pooled" if pool else "per position", "anchored": len(anchors)},
        "items": len(rows), "errors": len(errors), "ambiguous": len(ambiguous), "flagged": len(flagged),
        "thresholds": result.to_json()["thresholds"],
        "likely_error": precision_recall(likely, errors),
        "likely_error_among_flagged": precision_recall(likely, errors & flagged_set),
        "ambiguous_or_gap": precision_recall(amb, ambiguous),
        "ambiguous_among_flagged": precision_recall(amb, ambiguous & flagged_set),
        "classes": dict(Counter(t.klass for t in result.items if t.item not in anchors)),
        "gaps": [g.to_json() for g in result.gaps],
        "routed_per_error_before": len(flagged) / found_before if found_before else None,
        "routed_per_error_after": len(likely) / found_after if found_after else None,
        "errors_found_before": found_before, "errors_found_after": found_after,
        "ap_posterior": float(average_precision_score(y, post_wrong)) if y.any() else None,
        "ap_ensemble_average": float(average_precision_score(y, [avg_wrong[i] for i in ids])) if y.any() else None,
        "ap_crowd_share": float(average_precision_score(y, crowd_wrong)) if y.any() else None,
        "sources": [{k: v for k, v in s.to_json().items() if k != "confusion"} for s in result.sources],
    }


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def table(name: str, out: dict) -> str:
    lines = [f"== {name} ({out['variant']['annotators']} annotators, {out['variant']['anchored']} anchored): "
             f"{out['items']} items, {out['errors']} errors, {out['ambiguous']} ambiguous, "
             f"{out['flagged']} flagged; thresholds from {out['thresholds']['source']}; classes {out['classes']}",
             f"{'measure':44} {'said':>6} {'tp':>5} {'precision':>10} {'recall':>8}"]
    for key in ("likely_error", "likely_error_among_flagged", "ambiguous_or_gap", "ambiguous_among_flagged"):
        m = out[key]
        lines.append(f"{key:44} {m['said']:>6} {m['tp']:>5} {_fmt(m['precision']):>10} {_fmt(m['recall']):>8}")
    lines.append(f"items to experts per confirmed error: before {_fmt(out['routed_per_error_before'])} "
                 f"({out['errors_found_before']} found), after {_fmt(out['routed_per_error_after'])} "
                 f"({out['errors_found_after']} found)")
    lines.append(f"AP of errors: posterior {_fmt(out['ap_posterior'])}, ensemble average "
                 f"{_fmt(out['ap_ensemble_average'])}, crowd share {_fmt(out['ap_crowd_share'])}")
    for s in out["sources"]:
        lines.append(f"  {s['source']:28} n={s['n']:<5} accuracy {s['accuracy']:.3f} [{s['low']:.3f}, {s['high']:.3f}]")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--rate", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judges", type=Path, default=None, help="label-audit score --out file on a subset")
    parser.add_argument("--anchored", type=float, default=0.1, help="share of items given expert gold (control sample)")
    parser.add_argument("--rte", type=Path, default=None, help="Snow et al. 2008 rte.standardized.tsv (named workers)")
    args = parser.parse_args()
    rows = load(args.data)
    errors = {r["id"] for r in rows if r["top_share"] >= 0.8 and r["old"] != r["top"]}
    ambiguous = {r["id"] for r in rows if r["top_share"] < 0.6}
    built = planted(rows, rate=args.rate, seed=args.seed)
    sets = {"chaosnli": (rows, errors, ambiguous),
            "planted": (built, {r["id"] for r in built if r["planted"]}, {r["id"] for r in built if r["top_share"] < 0.6})}
    results = {}
    if args.judges:
        judges = read_judges(args.judges)
        subset = [r for r in rows if r["id"] in judges]
        results["chaosnli/pooled/with judges, all items"] = evaluate(rows, errors, ambiguous, judges=judges)
        results["chaosnli/pooled/with judges, judged subset"] = evaluate(
            subset, errors & {r["id"] for r in subset}, ambiguous & {r["id"] for r in subset}, judges=judges)
        results["chaosnli/pooled/without judges, judged subset"] = evaluate(
            subset, errors & {r["id"] for r in subset}, ambiguous & {r["id"] for r in subset})
    for name, (data, err, amb) in sets.items():
        for pool, share in ((True, 0.0), (True, args.anchored), (False, args.anchored)):
            key = f"{name}/{'pooled' if pool else 'positions'}/anchored={share}"
            results[key] = evaluate(data, err, amb, pool=pool, anchored=share, seed=args.seed)
    for name, out in results.items():
        print(table(name, out))
    if args.rte:
        for k in (3, 5):
            rte_rows = load_rte(args.rte, k=k)
            for pool, share in ((True, 0.0), (False, 0.0), (False, args.anchored)):
                key = f"rte k={k}/{'pooled' if pool else 'workers'}/anchored={share}"
                results[key] = evaluate_rte(rte_rows, pool=pool, anchored=share, seed=args.seed)
                print(rte_table(key, results[key]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
