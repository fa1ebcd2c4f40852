"""From a stored draw and the experts' verdicts to rate, precision, recall; unsettled items bounded both ways."""

from __future__ import annotations

import pytest

from backend.review.sampling import Candidate, draw_sample
from stats_cli.stats.detector import detector_estimates
from stats_cli.stats.design_estimate import estimate_from_draw
from stats_cli.stats.error_rate import StratumCount, estimate_rate


def draw_of(design: str, budget: int = 20):
    cands = [Candidate(str(i), flagged=i < 10, in_review=i < 10) for i in range(100)]
    return draw_sample(cands, budget=budget, design=design, seed=1)


def test_fully_settled_stratified_draw_gives_the_plain_estimate() -> None:
    draw = draw_of("stratified")
    errors = {i.task_id: (int(i.task_id) < 8 or i.task_id in {"50", "51"}) for i in draw.items}
    unflagged_errors = sum(v for t, v in errors.items() if int(t) >= 10)
    result = estimate_from_draw(draw, errors)
    ref = estimate_rate([StratumCount(10, 10, 8, "flagged"), StratumCount(90, 20, unflagged_errors, "unflagged")])
    assert (result.rate.value, result.rate.low, result.rate.high) == pytest.approx((ref.rate, ref.low, ref.high))
    assert result.rate.n == 30 and result.unsettled == 0
    det = detector_estimates([StratumCount(10, 10, 8)], [StratumCount(90, 20, unflagged_errors)])
    assert result.precision.value == 0.8 and result.recall.value == pytest.approx(det.recall.rate)
    assert result.errors_left.value == pytest.approx(det.errors_left)


def test_unsettled_items_widen_the_interval_and_keep_it_honest() -> None:
    draw = draw_of("stratified")
    errors = {i.task_id: int(i.task_id) < 8 for i in draw.items}
    settled = estimate_from_draw(draw, errors)
    open_one = next(i.task_id for i in draw.items if int(i.task_id) >= 10)
    partial = estimate_from_draw(draw, {**errors, open_one: None})
    assert partial.unsettled == 1 and partial.rate.n == settled.rate.n - 1
    assert partial.rate.low <= settled.rate.low and partial.rate.high > settled.rate.high
    assert partial.rate.low <= partial.rate.value <= partial.rate.high


def test_random_draw_is_post_stratified_by_flag_for_the_detector() -> None:
    draw = draw_of("random", budget=40)
    errors = {i.task_id: int(i.task_id) < 8 for i in draw.items}
    flagged = frozenset(str(i) for i in range(10))
    result = estimate_from_draw(draw, errors, flagged_now=flagged)
    assert result.population == 100 and result.design == "random"
    drawn_flagged = sum(i.task_id in flagged for i in draw.items)
    assert result.precision.n == drawn_flagged
    assert result.recall is not None and 0 <= result.recall.low <= result.recall.high <= 1


def test_nothing_settled_means_no_estimate() -> None:
    draw = draw_of("stratified")
    result = estimate_from_draw(draw, {})
    assert result.rate is None and result.precision is None and result.unsettled == len(draw.items)


def test_an_undrawn_stratum_bounds_the_rate_from_zero_to_all_errors() -> None:
    cands = [Candidate(str(i), flagged=i < 10, in_review=i < 10) for i in range(100)]
    draw = draw_sample(cands, budget=0, design="stratified", seed=1)  # only the census stratum
    result = estimate_from_draw(draw, {i.task_id: True for i in draw.items})
    assert result.rate.value is None
    assert result.rate.low == pytest.approx(0.10) and result.rate.high == pytest.approx(1.0)
