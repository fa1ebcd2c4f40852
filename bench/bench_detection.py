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

- the confident-learning members alone (every item; fitted on every item's label of the scenario), and
  calibrated (isotonic P(wrong | score), 5-fold: each item's probability comes from a fit on the other
  folds, as if those had been reviewed);
- on a fixed random subset of ``--llm-items`` items (the embedded judge takes about a second per call on
  two cores): the confident-learning member on that subset, the LLM members alone, both combined (plain
  averaging, as the tool does) and both calibrated (logistic stacking of the two scores, 5-fold). The
  embedded SmolLM2-135M is at chance (docs/architecture.md#the-embedded-judge-proves-the-plumbing): its rows
  say so. Anyone with an API key or a GPU server passes their own ``--member``.

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

from backend.scoring.cache import CallCache  # noqa: E402
from backend.confident.fitting import is_confident, prepare_members  # noqa: E402
from backend.config.settings import Settings  # noqa: E402
from backend.task.dataset import Item  # noqa: E402
from backend.scoring.engine import Engine, EngineConfig  # noqa: E402
from backend.task.generic import generic_spec  # noqa: E402
from backend.scoring.members import build_members, parse_member_arg  # noqa: E402

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


def calibrated(scores: np.ndarray, wrong: np.ndarray, *, method: str, seed: int) -> np.ndarray | None:
    """Cross-validated P(wrong | scores): each item's probability from a fit on the other folds' "reviewed" items.

    ``isotonic`` on one score; ``logistic`` on several (stacking: member weights learnt). None when the items
    hold too few errors for :func:`backend.review.calibration.not_enough`.
    """
    from backend.review.calibration import fit_calibration, not_enough

    if not_enough(wrong):
        return None
    return fit_calibration(scores, wrong, method=method, seed=seed).cv_probs


def _f(value) -> str:
    return value if isinstance(value, str) else f"{value:.3f}"


def report_calibrated(name: str, scores: np.ndarray, wrong: np.ndarray, *, method: str, seed: int) -> None:
    probs = calibrated(scores, wrong, method=method, seed=seed)
    if probs is None:
        print(f"  {name:<38} PENDING: {int(wrong.sum())} errors among {len(wrong)} items, too few to calibrate")
    else:
        print(line(name, metrics(probs, wrong, probs >= 0.5)))


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
    entries = tuple(parse_member_arg(m) for m in args.member or ["cleanlab:tfidf-logreg", "local:smollm2"])
    settings = Settings.from_env(members=entries)  # the option orders, calibration, keys and folders of this process
    spec = generic_spec(labels=list(CLASSES), fields=["premise", "hypothesis"], name="chaosnli", guidelines=GUIDELINES,
                        option_orders=settings.option_orders, calibration=settings.calibration)
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = CallCache(args.cache_url)
    members = build_members(entries, spec, providers=settings.provider_settings(), prompts_root=settings.prompts_dir)
    confident = [m for m in members if is_confident(m)]
    llm = [m for m in members if not is_confident(m)]
    subset = np.sort(np.random.default_rng(args.seed).choice(len(rows), size=min(args.llm_items, len(rows)), replace=False))
    print(f"ChaosNLI SNLI ({len(rows)} items); confident-learning members: {[m.id for m in confident] or 'none'}; "
          f"LLM members: {[m.id for m in llm] or 'none'} on a fixed subset of {len(subset)} items")
    if any(m.kind == "local" for m in llm):
        print("  note: the embedded SmolLM2-135M is at chance on NLI (docs/architecture.md); its rows measure the plumbing")
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
            s_cl, f_cl = run_engine(spec, kept, items, cache)
            print(line("confident learning alone", metrics(s_cl, wrong, f_cl)))
            report_calibrated("  calibrated (isotonic, 5-fold)", s_cl, wrong, method="isotonic", seed=args.seed)
        if not llm:
            continue
        w_sub = wrong[subset]
        if kept:
            print(line("confident learning, same subset", metrics(s_cl[subset], w_sub, f_cl[subset])))
        s_llm, f_llm = run_engine(spec, llm, sub_items, cache)
        print(line("LLM members alone", metrics(s_llm, w_sub, f_llm)))
        if kept:
            s_all, f_all = run_engine(spec, kept + llm, sub_items, cache)
            print(line("combined (plain average)", metrics(s_all, w_sub, f_all)))
            report_calibrated("calibrated (stacking, 5-fold)", np.c_[s_cl[subset], s_llm], w_sub, method="logistic",
                              seed=args.seed)
    cache.close()


if __name__ == "__main__":
    main()
