"""The "95 % sure" threshold: fixed-sequence testing keeps its error at ≤ α/2; scanning every threshold did not.

Issue 22, finding 8. Each run: 80 reviewed flags with random confidences, each a real error with
probability 0.78 whatever its confidence — no threshold truly reaches the 0.80 target, so any
assured threshold is an error.
"""

from __future__ import annotations

import math
import random

from stats_cli.report.threshold import _steps, min_items_to_pass, threshold_for_precision

RUNS, N, TRUE_PRECISION, TARGET = 1500, 80, 0.78, 0.80
CEILING = 0.025 + 3 * math.sqrt(0.025 * 0.975 / RUNS)


def _runs():
    rng = random.Random(5)
    for _ in range(RUNS):
        conf = [rng.random() for _ in range(N)]
        yield conf, [rng.random() < TRUE_PRECISION for _ in range(N)]


def test_fixed_sequence_error_is_controlled_where_the_full_scan_was_not() -> None:
    fixed = scan = 0
    for conf, ok in _runs():
        fixed += threshold_for_precision(conf, ok, target=TARGET)[1] is not None
        scan += any(step.precision_low >= TARGET for step in _steps(conf, ok, 0.95))  # the former rule
    assert fixed / RUNS <= CEILING, fixed / RUNS
    assert scan / RUNS > 0.03, scan / RUNS  # the scan's error, well above the nominal 2.5 %


def test_fixed_sequence_finds_a_threshold_when_precision_is_high_and_stops_at_the_first_failure() -> None:
    conf = [1 - i / 100 for i in range(60)]
    ok = [True] * 40 + [False] * 20  # the 40 most confident are all errors, the rest are not
    observed, assured = threshold_for_precision(conf, ok, target=0.8)
    assert assured is not None and assured.kept >= 40 and assured.precision_low >= 0.8
    assert min_items_to_pass(0.8) == 17  # 0.8^17 < 0.025 ≤ 0.8^16
    assert threshold_for_precision([0.9] * 10, [True] * 10, target=0.8)[1] is None  # 10 items cannot assure 80 %
