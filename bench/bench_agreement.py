"""Benchmark: Fleiss κ, Krippendorff α and Gwet AC1 on many items × raters vs statsmodels and `krippendorff`.

Run: ``python bench/bench_agreement.py [--items 1000000] [--raters 5] [--repeats 3]``.
Every timing starts from the same raw items × raters code matrix (missing = -1 / NaN), so each
side pays for its own tallying. Prints best-of-``repeats`` seconds and ratios (ours / peer;
< 1 means we are faster). Not part of the test suite.

Peers: statsmodels ``aggregate_raters`` + ``fleiss_kappa`` (complete data only, so the data has
no missing cells); ``krippendorff.alpha(reliability_data=...)``. No AC1 implementation installs
next to current scipy (irrCAC pins scipy 1.12), so AC1 is compared with the fastest Fleiss peer,
which does the same amount of work.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa as sm_fleiss

from stats_cli.stats.agreement import fleiss_kappa, gwet_ac1, krippendorff_alpha
from stats_cli.stats.ratings import RatingsTable


def best_of(repeats: int, fn: Callable[[], float]) -> tuple[float, float]:
    times, value = [], float("nan")
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--categories", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    truth = rng.integers(0, args.categories, args.items)
    noise = rng.random((args.items, args.raters)) < 0.3
    codes = np.where(noise, rng.integers(0, args.categories, (args.items, args.raters)), truth[:, None])
    categories = [str(k) for k in range(args.categories)]
    table = RatingsTable.from_codes(codes, categories=categories)
    reliability = codes.T.astype(float)  # krippendorff wants raters × units

    ours_fleiss = best_of(args.repeats, lambda: fleiss_kappa(table.counts()).value)
    sm = best_of(args.repeats, lambda: sm_fleiss(aggregate_raters(codes, n_cat=args.categories)[0]))
    ours_alpha = best_of(args.repeats, lambda: krippendorff_alpha(table, level="nominal").value)
    kd = best_of(args.repeats, lambda: krippendorff.alpha(
        reliability_data=reliability, level_of_measurement="nominal", value_domain=list(range(args.categories))))
    ours_ac1 = best_of(args.repeats, lambda: gwet_ac1(table.counts()).value)

    assert abs(ours_fleiss[1] - sm[1]) < 1e-9, (ours_fleiss[1], sm[1])
    assert abs(ours_alpha[1] - kd[1]) < 1e-9, (ours_alpha[1], kd[1])
    fastest_peer = min(sm[0], kd[0])
    print(f"{args.items:,} items × {args.raters} raters, {args.categories} categories, best of {args.repeats}")
    print(f"{'statistic':<22}{'ours s':>10}{'peer':>22}{'peer s':>10}{'ratio':>8}")
    for name, ours, peer_name, peer in [
        ("Fleiss κ", ours_fleiss, "statsmodels", sm),
        ("Krippendorff α", ours_alpha, "krippendorff", kd),
        ("Gwet AC1", ours_ac1, "fastest peer above", (fastest_peer, float("nan"))),
    ]:
        print(f"{name:<22}{ours[0]:>10.3f}{peer_name:>22}{peer[0]:>10.3f}{ours[0] / peer[0]:>8.2f}")
    print(f"values: κ {ours_fleiss[1]:.6f}  α {ours_alpha[1]:.6f}  AC1 {ours_ac1[1]:.6f}")


if __name__ == "__main__":
    main()
