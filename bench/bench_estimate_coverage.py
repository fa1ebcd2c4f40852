"""Benchmark: coverage of the error-rate intervals at each end, on multi-stratum designs and end-to-end projects.

Run: ``python bench/bench_estimate_coverage.py [--replicates 2000] [--projects 200] [--seed 0]``.
The default run (1000 replicates per design and method, 100 projects per end-to-end scenario) takes a
minute or two on one core; pass more for tighter Monte-Carlo errors.

Part 1 — fixed stratified designs (:func:`stats_cli.stats.estimate_sim.simulate_design`): each replicate draws
the project's errors per stratum (Bin(N_h, p_h)) and the sample (hypergeometric), then asks each
interval method. Printed per design and method: the lower-end miss rate (the lower end above the
truth: the headline "at least X %" is wrong; nominal 2.5 %), the upper-end miss rate, two-sided
coverage, mean width, and the Monte-Carlo s.e. of the lower-end miss rate. The baseline is MOVER, the
former method, measured in the same run; "width ×" is each method's mean width over MOVER's.

Part 2 — end-to-end projects (:func:`stats_cli.stats.estimate_sim.simulate`): the in-tool draw and estimate,
random vs stratified, coverage and the stratified / random width ratio. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import math

from stats_cli.stats.estimate_sim import Scenario, StratumDesign, simulate, simulate_design

DESIGNS = (
    StratumDesign("4 bands at 2 %, n = 25 each", (2000,) * 4, (25,) * 4, (0.02,) * 4),
    StratumDesign("census (150 flags, 60 %) + 4 bands at 5/2/1/0.5 %", (150, 2000, 2000, 2000, 2000),
                  (150, 25, 25, 25, 25), (0.6, 0.05, 0.02, 0.01, 0.005)),
    StratumDesign("8 bands at 1 %, n = 25 each", (1000,) * 8, (25,) * 8, (0.01,) * 8),
    StratumDesign("sampled flags (8 %, 60 %) + unflagged (3 %)", (160, 1840), (40, 110), (0.6, 0.03)),
)
METHODS = ("mover", "korn-graubard", "gamma-poisson", "gamma")

SCENARIOS = {
    "5% errors, sens 0.7, false flags 3%": Scenario(),
    "2% errors, sens 0.8, false flags 2%": Scenario(error_rate=0.02, sensitivity=0.8, false_flag_rate=0.02),
    "3% errors, flags sampled (Neyman)": Scenario(population=3000, error_rate=0.03, sensitivity=0.6,
                                                 false_flag_rate=0.03, flags_in_review=False,
                                                 flag_confidence=0.65, agree_confidence=0.95),
}


def designs(replicates: int, seed: int) -> None:
    print(f"{'design':52} {'method':14} {'low miss':>8} {'±MC se':>7} {'up miss':>8} {'coverage':>8} "
          f"{'width':>7} {'width ×':>7}")
    for design in DESIGNS:
        base = None
        for method in METHODS:
            r = simulate_design(design, method=method, replicates=replicates, seed=seed)
            base = base or r.mean_width
            print(f"{design.name:52} {method:14} {r.lower_miss:8.4f} {r.se(r.lower_miss):7.4f} "
                  f"{r.upper_miss:8.4f} {r.coverage:8.3f} {r.mean_width:7.4f} {r.mean_width / base:7.2f}")


def projects(replicates: int, seed: int) -> None:
    print(f"\n{'scenario':40} {'design':10} {'coverage':>9} {'±MC se':>7} {'width':>7} {'Wald cov':>8}")
    for name, scenario in SCENARIOS.items():
        widths = {}
        for design in ("random", "stratified"):
            r = simulate(scenario, design=design, replicates=replicates, seed=seed)
            widths[design] = r.mean_width
            print(f"{name:40} {design:10} {r.coverage:9.3f} {r.monte_carlo_se:7.3f} {r.mean_width:7.4f} "
                  f"{r.wald_coverage:8.3f}")
        print(f"{'':40} {'ratio':10} stratified/random width = {widths['stratified'] / widths['random']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000, help="replicates per design and method")
    parser.add_argument("--projects", type=int, default=100, help="simulated projects per end-to-end scenario")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"nominal: 2.5 % miss at each end; MC s.e. of 2.5 % over {args.replicates} replicates = "
          f"{math.sqrt(0.025 * 0.975 / args.replicates):.4f}\n")
    designs(args.replicates, args.seed)
    projects(args.projects, args.seed)


if __name__ == "__main__":
    main()
