"""Benchmark: the judge-assisted error rate against the design-only one, on real and at-chance judges.

Run: ``python bench/bench_certified.py [--replicates 1000] [--seed 0] [--needed-replicates 200]``
(a few minutes on one core). Populations: ``bench/certified_scenarios.py``. Each replicate draws a
simple random sample of n items without replacement from the N items (the experts' review: their
verdict is the item's truth) and asks :func:`stats_cli.stats.judge_assisted.judge_assisted_rate`.
Printed per population and n: the coverage of the 95 % interval of each estimate (Monte-Carlo s.e.
≈ 0.007 at 1000 replicates), the mean width of each, their ratio, and how often the judges were used;
``ppi-python``'s ``ppi_mean_ci`` (PPI++, tuned λ, no finite population correction) beside them on the
same samples. Then the reviews needed for a mean half-width of ±2 and ±3 points (smallest n on a grid).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.certified_scenarios import Population, populations  # noqa: E402
from stats_cli.stats.judge_assisted import StratumSample, judge_assisted_rate  # noqa: E402

try:  # the authors' PPI++ (pip install ppi-python), compared when installed
    from ppi_py import ppi_mean_ci
except ImportError:  # pragma: no cover
    ppi_mean_ci = None

SIZES = (50, 100, 200, 400)
GRID = (25, 50, 75, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1200, 1500)


def one(pop: Population, idx: np.ndarray):
    stratum = StratumSample(len(pop.scores), float(pop.scores.sum()), tuple(pop.scores[idx].tolist()),
                            tuple(pop.wrong[idx].tolist()))
    return judge_assisted_rate([stratum])


def run(pop: Population, n: int, reps: int, rng: np.random.Generator, *, ppi: bool) -> dict:
    truth = pop.rate
    cov_d = cov_j = cov_p = used = 0
    w_d, w_j, w_p = [], [], []
    for _ in range(reps):
        idx = rng.choice(len(pop.scores), size=n, replace=False)
        r = one(pop, idx)
        cov_d += r.design_only.low <= truth <= r.design_only.high
        cov_j += r.with_judges.low <= truth <= r.with_judges.high
        used += r.used_judges
        w_d.append(r.design_only.high - r.design_only.low)
        w_j.append(r.with_judges.high - r.with_judges.low)
        if ppi and ppi_mean_ci is not None:
            lo, hi = ppi_mean_ci(pop.wrong[idx].astype(float), pop.scores[idx], pop.scores, alpha=0.05)
            lo, hi = float(np.ravel(lo)[0]), float(np.ravel(hi)[0])
            cov_p += lo <= truth <= hi
            w_p.append(hi - lo)
    out = {"n": n, "cov_design": cov_d / reps, "cov_judges": cov_j / reps, "width_design": float(np.mean(w_d)),
           "width_judges": float(np.mean(w_j)), "used": used / reps}
    out["ratio"] = out["width_judges"] / out["width_design"]
    if w_p:
        out.update(cov_ppi=cov_p / reps, width_ppi=float(np.mean(w_p)))
    return out


def needed(pop: Population, half: float, reps: int, rng: np.random.Generator) -> tuple[int | None, int | None]:
    """Smallest n of the grid whose mean half-width is ≤ ``half``: (design-only, with judges)."""
    design = judges = None
    for n in GRID:
        if n >= len(pop.scores):
            break
        r = run(pop, n, reps, rng, ppi=False)
        if design is None and r["width_design"] / 2 <= half:
            design = n
        if judges is None and r["width_judges"] / 2 <= half:
            judges = n
        if design is not None and judges is not None:
            break
    return design, judges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--needed-replicates", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| population | N | error rate | n | coverage design / judges / ppi-python | width design / judges "
          "/ ppi-python (points) | judges ÷ design | judges used |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 1.0
    for pop in populations():
        for n in sizes:
            r = run(pop, n, args.replicates, rng, ppi=True)
            worst = min(worst, r["cov_judges"], r["cov_design"])
            ppi_cov = f"{r['cov_ppi']:.3f}" if "cov_ppi" in r else "—"
            ppi_w = f"{100 * r['width_ppi']:.1f}" if "width_ppi" in r else "—"
            print(f"| {pop.name} | {len(pop.scores)} | {100 * pop.rate:.1f} % | {n} | {r['cov_design']:.3f} / "
                  f"{r['cov_judges']:.3f} / {ppi_cov} | {100 * r['width_design']:.1f} / {100 * r['width_judges']:.1f} "
                  f"/ {ppi_w} | {r['ratio']:.2f} | {100 * r['used']:.0f} % |", flush=True)
    print(f"\nlowest coverage of either interval: {worst:.3f}\n")
    print("| population | reviews for ±3 points: design / judges | ±2 points: design / judges |")
    print("|---|---|---|")
    for pop in populations():
        three = needed(pop, 0.03, args.needed_replicates, rng)
        two = needed(pop, 0.02, args.needed_replicates, rng)
        fmt = lambda pair: " / ".join("> grid" if v is None else str(v) for v in pair)  # noqa: E731
        print(f"| {pop.name} | {fmt(three)} | {fmt(two)} |", flush=True)


if __name__ == "__main__":
    main()
