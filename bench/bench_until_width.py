"""Benchmark: does ``review push --until-width`` keep the 95 % coverage? A fixed plan against stopping when narrow.

Run: ``nice -n 10 python bench/bench_until_width.py [--replicates 300] [--targets 2] [--batch 50] [--seed 0]``.
Populations: ``bench/certified_scenarios.py`` (real crowd judges on RTE and SNLI, the confident-learning
member on the tickets, the same thinned to 1–2 % errors, a judge at chance). Each replicate runs the
product's design (:mod:`backend.review.spread_design`: strata by the judges' certainty, draws ∝ N_h S_h,
each batch a prefix of one seeded random order per stratum) and the product's interval
(:func:`backend.review.judge_strata.settled_strata` then
:func:`backend.estimates.judge_assisted.judge_assisted_rate`) with raw scores by default; ``--calibrated``
uses the report's scores, calibrated on each sample and cross-fitted (about 0.15 s an interval: pair it
with ``--only``, ``--rules`` and fewer replicates). The experts' verdict is
the item's truth. Rules (:mod:`backend.review.until_width`):

* ``fixed``: n planned up front from the scores alone (:func:`~backend.review.until_width.planned_reviews`),
  the interval read once.
* ``two-stage``: a pilot batch, then the size read off its interval
  (:func:`~backend.review.until_width.second_stage_size`), drawn at once, the interval read once more.
* ``sequential``: a batch at a time, stop as soon as the 95 % interval is within ±W (or at a census).
* ``sequential 98 %``: the same rule on the 98 % interval (the inflation correction: the interval the rule
  stops on, and reports, is the 98 % one; its coverage is then checked against the 95 % promise).

Printed per population and target: coverage of the final interval (Monte-Carlo s.e. ≈ 0.013 at 300
replicates), mean reviews used, the share of runs whose final half-width met the target, for each rule.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.estimates.judge_assisted import judge_assisted_rate  # noqa: E402
from backend.review.judge_strata import settled_strata  # noqa: E402
from backend.review.spread_design import spread_plan, spread_strata, stratum_orders, stratum_spreads  # noqa: E402
from backend.review.until_width import next_size, planned_reviews, second_stage_size  # noqa: E402
from bench.certified_scenarios import Population, populations  # noqa: E402

RULES = (("fixed", 0.95), ("two-stage", 0.95), ("sequential", 0.95), ("sequential", 0.98))


class Design:
    """One population's spread design, computed once (strata and spreads depend on the scores only)."""

    def __init__(self, pop: Population, *, calibrate: bool = False) -> None:
        self.pop = pop
        self.calibrate = calibrate
        self.scores = {str(i): float(s) for i, s in enumerate(pop.scores)}
        self.strata = spread_strata(self.scores)
        self.sizes = {h: len(ids) for h, ids in self.strata.items()}
        self.spreads = stratum_spreads(self.scores, self.strata)

    def interval(self, orders: dict[str, list[str]], size: int, confidence: float):
        """The product's interval on the first ``size`` items of ``orders`` (all settled: verdict = truth)."""
        plan = spread_plan(size, self.sizes, self.spreads)
        rows = [(int(t), bool(self.pop.wrong[int(t)]), h, self.sizes[h] / plan[h])
                for h, order in orders.items() for t in order[:plan[h]]]
        inputs = settled_strata(self.pop.scores, rows, self.sizes, calibrate=self.calibrate)
        return judge_assisted_rate(inputs.strata, confidence=confidence), sum(plan.values())


def replicate(design: Design, rule: str, confidence: float, half: float, batch: int, seed: int) -> tuple[bool, int, bool]:
    """(covered, reviews used, target met) of one run."""
    orders = stratum_orders(design.strata, seed=seed)
    total = len(design.scores)
    if rule == "fixed":
        result, used = design.interval(orders, planned_reviews(design.scores, half), confidence)
    elif rule == "two-stage":
        pilot, used = design.interval(orders, min(batch, total), confidence)
        size = second_stage_size(pilot=used, population=total, result=pilot, half_width=half)
        result, used = (pilot, used) if size <= used else design.interval(orders, size, confidence)
    else:
        size = min(batch, total)
        while True:
            result, used = design.interval(orders, size, confidence)
            bigger = next_size(drawn=used, population=total, batch=batch, result=result, half_width=half)
            if bigger == used or used >= total:
                break
            size = bigger
    est = result.with_judges
    return est.low <= design.pop.rate <= est.high, used, (est.high - est.low) / 2 <= half + 1e-12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--targets", default="2", help="half-widths in points, comma-separated")
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated population names (default: all)")
    parser.add_argument("--calibrated", action="store_true",
                        help="the report's scores: calibrated on each sample, cross-fitted (about 0.15 s an interval)")
    parser.add_argument("--rules", default="", help="comma-separated rule labels, e.g. 'sequential 95 %%'")
    args = parser.parse_args()
    chosen = [p for p in populations() if not args.only or p.name in args.only.split(",")]
    targets = [float(t) / 100 for t in args.targets.split(",")]
    rules = [(r, c) for r, c in RULES if not args.rules or f"{r} {100 * c:g} %" in args.rules.split(",")]
    labels = [f"{r} {100 * c:g} %" for r, c in rules]
    scores = "calibrated scores (cross-fitted)" if args.calibrated else "raw scores"
    print(f"replicates {args.replicates}, batch {args.batch}, seed {args.seed}, {scores}\n")
    print("| population | N | error rate | target | " + " | ".join(f"{lab}: coverage / reviews / met" for lab in labels)
          + " |")
    print("|---|---|---|---|" + "---|" * len(rules))
    worst = {lab: 1.0 for lab in labels}
    start = time.process_time()
    for p_index, pop in enumerate(chosen):
        design = Design(pop, calibrate=args.calibrated)
        for half in targets:
            cells = []
            for (rule, confidence), lab in zip(rules, labels):
                runs = [replicate(design, rule, confidence, half, args.batch, seed=args.seed * 100_003 + p_index * 10_007 + k)
                        for k in range(args.replicates)]
                cover = float(np.mean([r[0] for r in runs]))
                worst[lab] = min(worst[lab], cover)
                cells.append(f"{cover:.3f} / {np.mean([r[1] for r in runs]):.0f} / "
                             f"{100 * np.mean([r[2] for r in runs]):.0f} %")
            print(f"| {pop.name} | {len(pop.scores)} | {100 * pop.rate:.1f} % | ±{100 * half:g} | " + " | ".join(cells)
                  + " |", flush=True)
    print("\nlowest coverage: " + ", ".join(f"{lab} {worst[lab]:.3f}" for lab in labels))
    print(f"CPU {time.process_time() - start:.0f} s (pid {os.getpid()})")


if __name__ == "__main__":
    main()
