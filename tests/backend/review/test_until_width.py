"""Review until sure: the target, the plan up front, the spread design's batches and the push's step, against known truths.

The step runs on a real SQLite review store; the "experts" settle each drawn item with its planted truth.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from backend.estimates.judge_assisted import StratumSample, judge_assisted_rate
from backend.review.outcome import GoldStatus, ReviewOutcome
from backend.review.review_store import ReviewStore
from backend.review.sample_store import SampleStore
from backend.review.sampling import Candidate, draw_sample
from backend.review.spread_design import SPREAD, MIN_PER_STRATUM, certainty_stratum, spread_draw
from backend.review.until_width import (WidthTarget, more_reviews, more_reviews_line, next_size,
                                        planned_reviews, second_stage_size)
from backend.review.until_width_push import UntilRequest, step_until_width, width_lines
from backend.scoring.results import ItemResult


def test_a_target_is_points_or_errors():
    assert WidthTarget.parse("2").rate(1000) == pytest.approx(0.02)
    assert WidthTarget.parse("±1.5 points").rate(10) == pytest.approx(0.015)
    assert WidthTarget.parse("40errors").rate(1000) == pytest.approx(0.04)
    assert WidthTarget.parse("40 errors").describe() == "±40 errors"
    for bad in ("", "two", "0", "60", "-2"):
        with pytest.raises(ValueError):
            WidthTarget.parse(bad)


def test_the_plan_is_the_textbook_sample_size_when_every_score_is_one_half():
    # one stratum, S² = 0.25: n0 = z² p(1 − p) / W² = 2401.0, n = n0 / (1 + n0 / N) = 1936.3 for N = 10,000
    scores = {str(i): 0.5 for i in range(10_000)}
    assert planned_reviews(scores, 0.02) == 1937
    assert planned_reviews({str(i): 0.5 for i in range(100)}, 0.001) == 100  # never more than a census


def test_the_plan_trusts_sure_judges_and_spends_on_unsure_items():
    sure = {str(i): 0.01 for i in range(10_000)}
    unsure = {str(i): 0.3 for i in range(10_000)}
    # S² = 0.0099 vs 0.21: about 21 times fewer reviews when the judges are sure
    assert 15 < planned_reviews(unsure, 0.02) / planned_reviews(sure, 0.02) < 25


def test_spread_draw_samples_unsure_items_more_and_each_batch_extends_the_last():
    rng = random.Random(3)
    scores = {str(i): rng.choice([0.01, 0.1, 0.5]) for i in range(600)}
    first = spread_draw(scores, size=60, seed=9)
    assert first.design == SPREAD and len(first.items) == 60
    rates = {i.stratum: i.inclusion_probability for i in first.items}
    sure, unsure = certainty_stratum(0.01), certainty_stratum(0.5)
    # ∝ S_h: sqrt(0.5 · 0.5) / sqrt(0.01 · 0.99) ≈ 5, up to rounding and the minimum per stratum
    assert 3.5 < rates[unsure] / rates[sure] < 6.5
    assert all(n >= MIN_PER_STRATUM for n in first.sample_sizes().values())
    second = spread_draw(scores, size=120, seed=9, previous=first)
    assert {i.task_id for i in first.items} < {i.task_id for i in second.items}
    assert len(second.items) == 120
    changed = {**scores, next(iter(scores)): 0.99 if scores[next(iter(scores))] != 0.99 else 0.5}
    with pytest.raises(ValueError, match="changed"):
        spread_draw({k: 0.5 for k in changed}, size=180, seed=9, previous=second)
    with pytest.raises(ValueError, match="seed"):
        spread_draw(scores, size=180, seed=10, previous=second)


def _result(n: int, errors: int):
    """A judge-assisted result over one stratum of n settled items out of 10n (scores uninformative)."""
    wrong = tuple(k < errors for k in range(n))
    scores = tuple(0.5 for _ in range(n))
    return judge_assisted_rate([StratumSample(10 * n, 0.5 * 10 * n, scores, wrong)])


def test_more_reviews_reads_the_residual_variance_and_says_when_the_target_is_reached():
    result = _result(100, 20)
    half = (result.with_judges.high - result.with_judges.low) / 2
    assert more_reviews(result, half + 1e-9) == 0
    # half the width: four times the unit variance, n0 = 4 · 100 / (1 − 100/1000) = 444.4, then the finite
    # population's n = n0 / (1 + n0 / 1000) = 307.7 → 308 in all, 208 more
    more = more_reviews(result, half / 2)
    assert more == 208
    line = more_reviews_line(result, WidthTarget(points=100 * half / 2))
    assert line.startswith(f"about {more} more reviews to reach ±")
    assert "PENDING (2 drawn items not settled yet)" in more_reviews_line(None, WidthTarget(points=2),
                                                                          reason="2 drawn items not settled yet")


def test_the_sequential_rule_stops_at_the_target_and_otherwise_draws_one_batch():
    result = _result(100, 20)
    half = (result.with_judges.high - result.with_judges.low) / 2
    assert next_size(drawn=100, population=1000, batch=50, result=result, half_width=half * 1.01) == 100
    assert next_size(drawn=100, population=1000, batch=50, result=result, half_width=half / 3) == 150
    assert next_size(drawn=980, population=1000, batch=50, result=None, half_width=0.01) == 1000
    # two-stage: the pilot's interval sets the size in all (308 for half its width: see above), or the pilot stays
    assert second_stage_size(pilot=100, population=1000, result=result, half_width=half / 2) == 308
    assert second_stage_size(pilot=100, population=1000, result=result, half_width=half * 1.01) == 100


def _audit(n: int = 400, seed: int = 1) -> tuple[list[ItemResult], dict[str, bool]]:
    """n items whose judges' P(wrong) tracks a planted truth (about 15 % wrong labels)."""
    rng = np.random.default_rng(seed)
    results, truth = [], {}
    for k in range(n):
        s = float(rng.choice([0.02, 0.1, 0.4, 0.8]))
        wrong = bool(rng.random() < s)
        truth[str(k)] = wrong
        results.append(ItemResult(id=str(k), original="a", prediction="b" if s > 0.5 else "a", confidence=max(s, 1 - s),
                                  probs={"a": 1 - s, "b": s}, flagged=s > 0.5))
    return results, truth


def _settle(draw, truth) -> dict[str, ReviewOutcome]:
    return {i.task_id: ReviewOutcome(i.task_id, "a", None, None, "b" if truth[i.task_id] else "a",
                                     GoldStatus.EXPERTS_AGREE) for i in draw.items}


def _is_error(gold: str, original: str) -> bool:
    return gold != original


@pytest.mark.parametrize("rule", ["sequential", "two-stage", "fixed"])
def test_the_push_step_draws_waits_and_stops(tmp_path, rule):
    results, truth = _audit()
    store = ReviewStore(f"sqlite:///{tmp_path / 'audit.sqlite'}")
    samples = SampleStore(store.db_engine)
    request = UntilRequest(WidthTarget(points=8), batch=40, rule=rule, seed=5)
    step, draw = step_until_width(samples, "p", results, {}, request, is_error=_is_error)
    assert step.state == "drawn" and step.added == len(draw.items)
    assert len(draw.items) == (step.planned if rule == "fixed" else 40)
    assert samples.draw("p") == draw
    waiting, same = step_until_width(samples, "p", results, {}, request, is_error=_is_error)
    assert waiting.state == "waiting" and waiting.added == 0 and same == draw
    assert f"PENDING ({len(draw.items)} drawn items not settled yet)" in waiting.line
    steps = []
    for _ in range(20):  # the experts settle each batch; the rule draws the next until the target is met
        step, grown = step_until_width(samples, "p", results, _settle(draw, truth), request, is_error=_is_error)
        steps.append(step.state)
        if step.state != "drawn":
            break
        assert {i.task_id for i in draw.items} < {i.task_id for i in grown.items}
        draw = grown
    assert step.state in ("reached", "plan done")
    if rule == "two-stage":  # the pilot's interval sets the second stage, drawn at once; then it stops
        assert steps in (["drawn", "plan done"], ["plan done"])
    if rule == "sequential":
        assert step.half_width <= 0.08
        assert "±8 points reached" in step.line
    assert len(samples.draw("p").items) == step.drawn
    lines = width_lines(results, samples.draw("p"), _settle(draw, truth), is_error=_is_error,
                        targets=[WidthTarget(points=1)])
    assert lines[0].startswith("about ") and "to reach ±1 points" in lines[0]


def test_the_push_step_refuses_to_grow_another_design(tmp_path):
    results, _ = _audit(60)
    store = ReviewStore(f"sqlite:///{tmp_path / 'audit.sqlite'}")
    samples = SampleStore(store.db_engine)
    samples.save("p", draw_sample([Candidate(str(r.id), r.flagged) for r in results], budget=10, design="random",
                                  seed=0))
    with pytest.raises(ValueError, match="grows only a spread draw"):
        step_until_width(samples, "p", results, {}, UntilRequest(WidthTarget(points=5)), is_error=_is_error)
