"""Benchmark: the judge-assisted error rate against the design-only one, on real and at-chance judges.

Run: ``python bench/bench_certified.py [--replicates 1000] [--seed 0] [--needed-replicates 200]``
(2000 / 300 replicates took about 15 minutes on 2 shared cores); ``--calibrated`` adds the scores
calibrated on each sample, cross-fitted (logistic; about 0.15 s a replicate: pair it with ``--only``,
``--sizes`` and ``--skip-needed``). ``pip install -e .[bench]`` brings ``ppi-python`` for its column.
Populations: ``bench/certified_scenarios.py``. Each replicate draws a
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
from stats_cli.sources.judge_scores import calibrated_scores  # noqa: E402
from stats_cli.stats.judge_assisted import StratumSample, judge_assisted_rate  # noqa: E402

try:  # the authors' PPI++ (pip install ppi-python), compared when installed
    from ppi_py import ppi_mean_ci
except ImportError:  # pragma: no cover
    ppi_mean_ci = None

SIZES = (50, 100, 200, 400)
GRID = (25, 50, 75, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1200, 1500)


def one(pop: Population, idx: np.ndarray, *, calibrate: bool = False):
    """Both estimates from one sample; ``calibrate``: the scores calibrated on it first, cross-fitted."""
    scores, total = pop.scores[idx], float(pop.scores.sum())
    if calibrate:
        scores, total, _ = calibrated_scores(pop.scores, idx, pop.wrong[idx], np.ones(len(idx)))
    stratum = StratumSample(len(pop.scores), total, tuple(scores.tolist()), tuple(pop.wrong[idx].tolist()))
    return judge_assisted_rate([stratum])


def run(pop: Population, n: int, reps: int, rng: np.random.Generator, *, ppi: bool, calibrate: bool = False) -> dict:
    truth = pop.rate
    cov_d = cov_j = cov_p = used = 0
    w_d, w_j, w_p = [], [], []
    for _ in range(reps):
        idx = rng.choice(len(pop.scores), size=n, replace=False)
        r = one(pop, idx, calibrate=calibrate)
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


def needed(pop: Population, half: float, reps: int, rng: np.random.Generator, *,
           calibrate: bool) -> tuple[int | None, int | None]:
    """Smallest n of the grid whose mean half-width is ≤ ``half``: (design-only, with judges)."""
    design = judges = None
    for n in GRID:
        if n >= len(pop.scores):
            break
        r = run(pop, n, reps, rng, ppi=False, calibrate=calibrate)
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
    parser.add_argument("--calibrated", action="store_true",
                        help="also the scores calibrated on each sample, cross-fitted (logistic; slow)")
    parser.add_argument("--only", default="", help="comma-separated population names (default: all)")
    parser.add_argument("--skip-needed", action="store_true", help="skip the reviews-needed table")
    args = parser.parse_args()
    chosen = [p for p in populations() if not args.only or p.name in args.only.split(",")]
    rng = np.random.default_rng(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| population | N | error rate | n | coverage: design / judges raw / judges calibrated / ppi-python | "
          "width (points): design / raw / calibrated / ppi-python | ÷ design: raw / calibrated | judges used: raw / "
          "calibrated |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 1.0
    for pop in chosen:
        for n in sizes:
            r = run(pop, n, args.replicates, rng, ppi=True)
            c = (run(pop, n, args.replicates, rng, ppi=False, calibrate=True) if args.calibrated
                 else {"cov_judges": float("nan"), "cov_design": 1.0, "width_judges": float("nan"),
                       "ratio": float("nan"), "used": float("nan")})
            worst = min(worst, r["cov_judges"], r["cov_design"], *([c["cov_judges"]] if args.calibrated else []))
            ppi_cov = f"{r['cov_ppi']:.3f}" if "cov_ppi" in r else "—"
            ppi_w = f"{100 * r['width_ppi']:.1f}" if "width_ppi" in r else "—"
            print(f"| {pop.name} | {len(pop.scores)} | {100 * pop.rate:.1f} % | {n} | {r['cov_design']:.3f} / "
                  f"{r['cov_judges']:.3f} / {c['cov_judges']:.3f} / {ppi_cov} | {100 * r['width_design']:.1f} / "
                  f"{100 * r['width_judges']:.1f} / {100 * c['width_judges']:.1f} / {ppi_w} | {r['ratio']:.2f} / "
                  f"{c['ratio']:.2f} | {100 * r['used']:.0f} / {100 * c['used']:.0f} % |", flush=True)
    print(f"\nlowest coverage of any interval of ours: {worst:.3f}\n")
    if args.skip_needed:
        return
    print("| population | reviews for ±3 points: design / raw / calibrated | ±2 points: design / raw / calibrated |")
    print("|---|---|---|")
    for pop in chosen:
        cells = []
        for half in (0.03, 0.02):
            design, raw = needed(pop, half, args.needed_replicates, rng, calibrate=False)
            calibrated = (needed(pop, half, args.needed_replicates, rng, calibrate=True)[1] if args.calibrated
                          else None)
            shown = (design, raw, calibrated) if args.calibrated else (design, raw)
            cells.append(" / ".join("> grid" if v is None else str(v) for v in shown))
        print(f"| {pop.name} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
