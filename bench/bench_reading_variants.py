"""Other readings of the same answers than ``auto``'s: how often each meets the issue's two bars, run by run.

Not the default path: this bench swaps the product's ``given`` re-weighting
(:func:`backend.scoring.prior_shift.given_prior`) for a variant, or changes how ``auto`` chooses, and reads every
recorded run of the real judge again (no call: ``--answers bench/data/real_judge_answers.jsonl.gz``). What it
measures is whether another reading would have met the class ratio (every class within 1.5x of its true count)
and the flags' bar (precision >= 0.5 at recall >= 0.5) on more runs than today's default; the default path's own
figures are :mod:`bench_presentations`'. Variants of ``given`` (each judge's answers re-weighted towards the class
shares of the labels, ``target``, from its mean answer ``mean``):

- ``given``: the product's, one step: ``p * target / mean``;
- ``iterated``: the weights iterated until the judge's mean *re-weighted* answer equals ``target``;
- ``power-a``: part of the step, ``p * (target / mean) ** a`` (``a`` = 0.25, 0.5, 0.75): towards the geometric
  mean of the labels' shares and the judge's own;
- ``counts``: per-class offsets on the log answers until each class is the top answer for as many items as carry
  its label (the verdicts' counts forced to the labels').

And ``auto`` choosing among none / ``given`` / ``fitted`` with each variant in ``given``'s place, or (``guard``)
only among the readings whose verdicts stay within 1.5x of the labels' count for every class with 5 labels
(:mod:`backend.scoring.class_reach`), when any does; or keeping the judges' average while its verdicts are within
1.5x of the labels for every class, or unless another reading agrees with more than 2 labels more.

    python bench/bench_reading_variants.py --answers bench/data/real_judge_answers.jsonl.gz --json variants.jsonl
    python bench/bench_reading_variants.py --table variants.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_presentations as bp  # noqa: E402
from presentation_tables import _meets, _within_ratio  # noqa: E402
from backend.scoring import prior_shift  # noqa: E402
from backend.scoring.class_reach import class_reach  # noqa: E402
from backend.scoring.correction_choice import agreement  # noqa: E402

#: The recorded runs of docs/judges.md above the accuracy floor, one per distinct set of answers:
#: (set, presentation, items, natural sample).
RUNS = ([("snli", p, 100, False) for p in ("values+q", "hints+q", "values")]
        + [("snli", p, 64, False) for p in ("hints", "aliases+q", "hints+q", "values", "values+q+g", "hints+q+g")]
        + [("rotten-tomatoes", p, 64, False) for p in ("values+q", "values+q+g")]
        + [("snli", p, 80, True) for p in ("values+q", "values+q+g")]
        + [("snli", p, 48, False) for p in ("aliases+q", "hints", "values+q+g")]
        + [("snli", p, 32, False) for p in ("hints+q", "values", "values+q", "hints", "values+q+g")]
        + [("snli", p, 40, True) for p in ("aliases+q", "hints+q", "values+q+g")]
        + [("rotten-tomatoes", p, 32, False) for p in ("codes", "hints+q", "codes+q", "aliases+q", "values", "hints",
                                                        "values+q+g")]
        + [("rotten-tomatoes", "values+q", 48, False)])


def _fit(p: np.ndarray, q: np.ndarray) -> prior_shift.PriorFit:
    return prior_shift.PriorFit(p.mean(axis=0), q / q.sum(axis=1, keepdims=True), 0, True)


def power(a: float) -> Callable[[Any, Sequence[int]], prior_shift.PriorFit]:
    def fit(posteriors: Any, given: Sequence[int]) -> prior_shift.PriorFit:
        p = np.asarray(posteriors, dtype=float)
        return _fit(p, p * (prior_shift.label_shares(given, p.shape[1]) / p.mean(axis=0)) ** a)
    return fit


def iterated(posteriors: Any, given: Sequence[int]) -> prior_shift.PriorFit:
    p = np.asarray(posteriors, dtype=float)
    target, w = prior_shift.label_shares(given, p.shape[1]), np.ones(p.shape[1])
    for _ in range(500):
        q = p * w
        mean = (q / q.sum(axis=1, keepdims=True)).mean(axis=0)
        if np.max(np.abs(mean - target)) < 1e-9:
            break
        w = w * target / np.maximum(mean, 1e-12)
    return _fit(p, p * w)


def counts(posteriors: Any, given: Sequence[int]) -> prior_shift.PriorFit:
    p = np.asarray(posteriors, dtype=float)
    idx = np.asarray(given, dtype=int)
    known = idx[idx >= 0]
    want = np.bincount(known, minlength=p.shape[1]) * p.shape[0] / max(known.size, 1)
    logp, offset = np.log(np.maximum(p, 1e-12)), np.zeros(p.shape[1])
    for _ in range(2000):
        excess = np.bincount((logp + offset).argmax(axis=1), minlength=p.shape[1]) - want
        if np.all(np.abs(excess) <= 1):
            break
        offset[int(np.argmax(excess))] -= 0.02
    return _fit(p, np.exp(logp + offset))


VARIANTS = {"given": prior_shift.given_prior, "iterated": iterated, "power-0.25": power(0.25),
            "power-0.5": power(0.5), "power-0.75": power(0.75), "counts": counts}


@contextmanager
def given_as(fit: Callable[[Any, Sequence[int]], prior_shift.PriorFit]) -> Iterator[None]:
    """The product's ``given`` re-weighting swapped for ``fit`` while the block runs."""
    kept = prior_shift.given_prior
    prior_shift.given_prior = fit
    try:
        yield
    finally:
        prior_shift.given_prior = kept


def _figures(results: list, labels: Sequence[str], true: list[str], given: list[str], threshold: float) -> dict:
    f = bp.figures(results, labels, true, given, threshold)["ensemble"]
    reach = class_reach(results, labels)
    return {**{k: f[k] for k in ("accuracy", "ratio_min", "ratio_max", "ap", "flagged", "flag_precision",
                                 "flag_recall")}, "within_labels": not (reach["under"] or reach["over"])}


def run_one(data_set: str, presentation: str, n_items: int, natural: bool, cache: bp.CallCache) -> dict[str, Any]:
    """Every candidate reading of one recorded run, and what each choice rule picks among them."""
    spec, true, given, results, rule, engine, _ = bp.score_run(
        data_set, presentation, ["local:qwen2.5-coder-1.5b"], n_items=n_items, cache=cache, balanced=not natural)
    gated, gate = bp.gate_results(results, rule)
    readings = {"none": gated}
    fitted, info = prior_shift.correct_results(results, rule, mode="fitted", left_out=gate.left_out)
    if not info.get("note"):
        readings["fitted"] = fitted
    for name, fit in VARIANTS.items():
        with given_as(fit):
            readings[name] = prior_shift.correct_results(results, rule, mode="given", left_out=gate.left_out)[0]
    labels = list(spec.labels)
    agree = {name: agreement(r, labels)["agree"] for name, r in readings.items()}
    figures = {name: _figures(r, labels, true, given, engine.threshold) for name, r in readings.items()}
    return {"run": f"{data_set}{' (natural)' if natural else ''} · {presentation} ({n_items})",
            "llm_calls": engine.stats.llm_calls, "agree": agree, "readings": figures}


def _choose(run: dict[str, Any], given: str, *, guard: bool = False, margin: int = 0, reach: bool = False) -> str:
    """``auto``'s rule (most labels agreed with; ties keep none, then given, then fitted) with ``given`` standing for
    the product's ``given``; ``guard``: only among readings within 1.5x of the labels, when any is; ``margin``: the
    average kept unless another reading agrees with more than ``margin`` labels more; ``reach``: the average kept
    while its verdicts are within 1.5x of the labels for every class."""
    if reach and run["readings"]["none"]["within_labels"]:
        return "none"
    if margin and max(run["agree"][m] for m in ("none", given, "fitted") if m in run["agree"]) <= (
            run["agree"]["none"] + margin):
        return "none"
    order = [m for m in ("none", given, "fitted") if m in run["agree"]]
    if guard and any(run["readings"][m]["within_labels"] for m in order):
        order = [m for m in order if run["readings"][m]["within_labels"]]
    return max(order, key=lambda m: (run["agree"][m], -order.index(m)))


RULES: dict[str, Callable[[dict[str, Any]], str]] = {
    "auto (the default)": lambda run: _choose(run, "given"),
    **{f"auto, {v} as given": (lambda v: lambda run: _choose(run, v))(v) for v in VARIANTS if v != "given"},
    "auto, guard: readings within 1.5x of the labels": lambda run: _choose(run, "given", guard=True),
    "auto, the average kept while within 1.5x of the labels": lambda run: _choose(run, "given", reach=True),
    "auto, the average kept unless 2 labels behind": lambda run: _choose(run, "given", margin=2),
    **{f"{v} always": (lambda v: lambda run: v)(v) for v in VARIANTS},
    "the average always (none)": lambda run: "none",
}


def table(path: Path) -> str:
    """Per rule: the runs whose chosen reading meets the class ratio, the flags' bar, both; its mean accuracy."""
    runs = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    lines = [f"| rule ({len(runs)} runs) | ratio within 1.5x | flags >= 0.5 / >= 0.5 | both | mean accuracy |",
             "|---|---|---|---|---|"]
    for name, rule in RULES.items():
        chosen = [run["readings"][rule(run)] for run in runs]
        ratio, flags = [_within_ratio(f) for f in chosen], [_meets(f) for f in chosen]
        lines.append(f"| {name} | {sum(ratio)} | {sum(flags)} | {sum(r and f for r, f in zip(ratio, flags))} | "
                     f"{np.mean([f['accuracy'] for f in chosen]):.3f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=Path, help="seed the call cache from recorded answers first")
    parser.add_argument("--cache-url", default=f"sqlite:///{ROOT / '.label-audit' / 'bench_presentations.sqlite'}")
    parser.add_argument("--json", type=Path, help="append one JSON line per run here")
    parser.add_argument("--table", type=Path, help="print the rules' table from a --json file and stop")
    args = parser.parse_args(argv)
    if args.table:
        print(table(args.table))
        return
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = bp.CallCache(args.cache_url)
    try:
        if args.answers:
            from recorded_answers import seed

            print(f"seeded the call cache with {seed(cache, args.answers)} recorded answers ({args.answers})")
        for data_set, presentation, n_items, natural in RUNS:
            out = run_one(data_set, presentation, n_items, natural, cache)
            print(f"{out['run']}: {out['llm_calls']} calls")
            if args.json:
                with args.json.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(out, sort_keys=True) + "\n")
    finally:
        cache.close()


if __name__ == "__main__":
    main()
