"""Benchmark: how well a member list finds label errors, on real labelled text with known errors.

Run: ``python bench/bench_detection.py [--member cleanlab:tfidf-logreg --member local:smollm2]
[--llm-items 48] [--data ../shared/data/chaosnli/chaosNLI_snli.jsonl]``.

Data: ChaosNLI v1.0, SNLI part (Nie, Zhou & Bansal, EMNLP 2020; CC BY-NC 4.0; a copy of the official
release from github.com/jsbaan/calibration-on-disagreement-data @ 990e81c, described in
``../shared/data/README.md``), read from beside the checkout and never committed here. 1,514 premise /
hypothesis pairs; the clean label is the majority of 100 new crowd votes.

Scenarios:

- *planted*: 5, 10 and 20 % of the clean labels replaced, uniformly (any other class) or class-
  conditionally (entailment -> neutral -> contradiction -> entailment, a systematic confusion), fixed seeds;
- *real*: the original SNLI label against the 100-vote majority (378 of 1,514 differ): real disagreements.

Rows, each beside the random baseline measured on the same items:

- the confident-learning members alone (every item; fitted on every item's label of the scenario),
- the LLM members alone, both combined (plain averaging, as the tool does), and both calibrated
  (logistic stacking of the two scores learnt on a random half of the subset, the "reviewed control
  sample", evaluated on the other half) - these on a fixed random subset of ``--llm-items`` items, because
  the embedded judge takes seconds per item on two cores. The embedded SmolLM2-135M is at chance
  (DESIGN.md): its rows say so. Anyone with an API key or a GPU server passes their own ``--member``.

Score of an item = 1 - the ensemble's probability of the item's label (its probability of being wrong).
Columns: P@k (k = number of true errors among the items), flag precision and recall (the tool's flag
rule: prediction differs and confidence > threshold), average precision (AP) and ROC AUC. Random: P@k,
precision and AP equal the error rate, recall the flagged share, AUC 0.5.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backend.cache import CallCache  # noqa: E402
from backend.confident.fitting import is_confident, prepare_members  # noqa: E402
from backend.dataset import Item  # noqa: E402
from backend.engine import Engine, EngineConfig  # noqa: E402
from backend.generic import generic_spec  # noqa: E402
from backend.members import build_members, parse_member_arg  # noqa: E402

CLASSES = ("entailment", "neutral", "contradiction")
SHORT = {"e": "entailment", "n": "neutral", "c": "contradiction"}
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chaosnli" / "chaosNLI_snli.jsonl"
GUIDELINES = ("Given the premise, is the hypothesis definitely true (entailment), possibly true (neutral) or "
              "definitely false (contradiction)?")


def load_chaosnli(path: Path) -> list[dict]:
    """Rows with premise, hypothesis, the 100-vote majority (clean) and the original SNLI label."""
    rows = []
    for line in path.read_text("utf-8").splitlines():
        raw = json.loads(line)
        rows.append({"id": raw["uid"], "premise": raw["example"]["premise"],
                     "hypothesis": raw["example"]["hypothesis"], "clean": SHORT[raw["majority_label"]],
                     "original": SHORT[raw["old_label"]]})
    return rows


def plant(clean: list[str], *, rate: float, kind: str, seed: int) -> list[str]:
    """``clean`` with round(rate * n) labels replaced: uniformly, or along a fixed cycle of classes."""
    rng = np.random.default_rng(seed)
    noisy = list(clean)
    for i in rng.choice(len(clean), size=round(rate * len(clean)), replace=False):
        others = [c for c in CLASSES if c != clean[i]]
        noisy[i] = others[rng.integers(len(others))] if kind == "uniform" else CLASSES[(CLASSES.index(clean[i]) + 1) % 3]
    return noisy


def scenarios(rows: list[dict]) -> list[tuple[str, list[str]]]:
    clean = [r["clean"] for r in rows]
    out = [(f"planted {kind} {int(rate * 100)} %", plant(clean, rate=rate, kind=kind, seed=seed))
           for seed, (kind, rate) in enumerate((k, r) for k in ("uniform", "class-conditional") for r in (0.05, 0.1, 0.2))]
    out.append(("real: SNLI label vs 100-vote majority", [r["original"] for r in rows]))
    return out


def metrics(scores: np.ndarray, wrong: np.ndarray, flagged: np.ndarray) -> dict[str, float]:
    """P@k, flag precision/recall, AP, ROC AUC, with the random baseline of each on the same items."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    k = int(wrong.sum())
    top = np.argsort(-scores, kind="stable")[:k]
    rate = wrong.mean()
    return {"n": len(wrong), "errors": k, "p_at_k": wrong[top].mean() if k else float("nan"),
            "precision": wrong[flagged].mean() if flagged.any() else float("nan"),
            "recall": wrong[flagged].sum() / k if k else float("nan"), "ap": average_precision_score(wrong, scores),
            "auc": roc_auc_score(wrong, scores), "random_p": rate, "random_recall": flagged.mean(),
            "flagged": int(flagged.sum())}


def run_engine(spec, members, items, cache):
    """Scores (1 - P(label)) and flags of ``items`` under the tool's own averaging and flag rule."""
    results = list(Engine(spec, members, cache=cache, config=EngineConfig(concurrency=2)).score(items))
    scores = np.array([1.0 - (r.probs or {}).get(r.original, 1.0 / len(CLASSES)) for r in results])
    return scores, np.array([bool(r.flagged) for r in results])


def calibrated(cl: np.ndarray, llm: np.ndarray, wrong: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Logistic stacking of the two scores learnt on a random half (the control sample), scored on the rest."""
    from backend.review.calibration import fit_calibration, not_enough

    rng = np.random.default_rng(seed)
    control = np.zeros(len(wrong), bool)
    control[rng.choice(len(wrong), size=len(wrong) // 2, replace=False)] = True
    if not_enough(wrong[control]) or wrong[~control].min() == wrong[~control].max():
        return None
    fit = fit_calibration(np.c_[cl, llm][control], wrong[control], method="logistic", seed=seed)
    return fit.predict(np.c_[cl, llm][~control]), ~control


def calibrated_alone(scores: np.ndarray, wrong: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Isotonic P(wrong | score) learnt on a random half of the items (the control sample), scored on the rest."""
    from backend.review.calibration import fit_calibration

    control = np.zeros(len(wrong), bool)
    control[np.random.default_rng(seed).choice(len(wrong), size=len(wrong) // 2, replace=False)] = True
    fit = fit_calibration(scores[control], wrong[control], method="isotonic", seed=seed)
    return fit.predict(scores[~control]), ~control


def _f(value) -> str:
    return value if isinstance(value, str) else f"{value:.3f}"


def line(name: str, m: dict[str, float]) -> str:
    m = {k: ("  n/a" if isinstance(v, float) and np.isnan(v) else v) for k, v in m.items()}
    return (f"  {name:<38} n {m['n']:>5} err {m['errors']:>4} | P@k {_f(m['p_at_k'])} (rand {m['random_p']:.3f})"
            f" | flag P {_f(m['precision'])} R {_f(m['recall'])} of {m['flagged']:>4} (rand P {m['random_p']:.3f}"
            f" R {m['random_recall']:.3f}) | AP {m['ap']:.3f} (rand {m['random_p']:.3f}) | AUC {m['auc']:.3f} (rand 0.500)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--member", action="append", help="PROVIDER:MODEL[@URL], repeatable")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--llm-items", type=int, default=48, help="subset size for rows with LLM members")
    parser.add_argument("--cache-url", default=f"sqlite:///{ROOT / '.label-audit' / 'bench_detection.sqlite'}")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not args.data.is_file():
        sys.exit(f"no ChaosNLI file at {args.data} (expected ../shared beside the checkout); pass --data")
    rows = load_chaosnli(args.data)
    spec = generic_spec(labels=list(CLASSES), fields=["premise", "hypothesis"], name="chaosnli", guidelines=GUIDELINES)
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = CallCache(args.cache_url)
    members = build_members([parse_member_arg(m) for m in args.member or ["cleanlab:tfidf-logreg", "local:smollm2"]],
                            spec)
    confident = [m for m in members if is_confident(m)]
    llm = [m for m in members if not is_confident(m)]
    subset = np.sort(np.random.default_rng(args.seed).choice(len(rows), size=min(args.llm_items, len(rows)), replace=False))
    print(f"ChaosNLI SNLI ({len(rows)} items); confident-learning members: {[m.id for m in confident] or 'none'}; "
          f"LLM members: {[m.id for m in llm] or 'none'} on a fixed subset of {len(subset)} items")
    if any(m.kind == "local" for m in llm):
        print("  note: the embedded SmolLM2-135M is at chance on NLI (DESIGN.md); its rows measure the plumbing")
    for name, labels in scenarios(rows):
        items = [Item(id=r["id"], original=y, fields={"premise": r["premise"], "hypothesis": r["hypothesis"]})
                 for r, y in zip(rows, labels)]
        wrong = np.array([y != r["clean"] for r, y in zip(rows, labels)]) if not name.startswith("real") else \
            np.array([r["original"] != r["clean"] for r in rows])
        print(name)
        prepared = prepare_members(members, items, spec, delimit=True)
        for member, reason in prepared.left_out.items():
            print(f"  {member} left out: {reason}")
        kept = [m for m in prepared.members if is_confident(m)]
        sub_items = [items[i] for i in subset]
        if kept:
            s, f = run_engine(spec, kept, items, cache)
            print(line("confident learning alone", metrics(s, wrong, f)))
            cl_sub = s[subset]
            iso = calibrated_alone(s, wrong, args.seed)
            print(line("  calibrated (isotonic, held-out half)", metrics(iso[0], wrong[iso[1]], iso[0] >= 0.5)))
        if llm:
            s_llm, f_llm = run_engine(spec, llm, sub_items, cache)
            print(line("LLM members alone", metrics(s_llm, wrong[subset], f_llm)))
        if kept and llm:
            s_all, f_all = run_engine(spec, kept + llm, sub_items, cache)
            print(line("combined (plain average)", metrics(s_all, wrong[subset], f_all)))
            cal = calibrated(cl_sub, s_llm, wrong[subset], args.seed)
            if cal is None:
                print("  calibrated (stacking)              PENDING: too few errors in the control half")
            else:
                probs, held = cal
                print(line("calibrated (stacking, held-out half)", metrics(probs, wrong[subset][held], probs >= 0.5)))
    cache.close()


if __name__ == "__main__":
    main()
