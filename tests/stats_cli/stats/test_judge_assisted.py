"""The judge-assisted error rate: unbiased by design, λ = 0 is the design-only estimate, never wider, covers."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from stats_cli.stats.error_rate import StratumCount, estimate_rate
from backend.estimates.judge_assisted import (MIN_ERRORS, StratumSample, _jackknife, _moments, _point,
                                            judge_assisted_rate)


def population(n: int, rate: float, *, signal: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Truths and scores: wrong labels score higher by ``signal`` (0 = a judge at chance)."""
    rng = np.random.default_rng(seed)
    wrong = rng.uniform(size=n) < rate
    scores = np.clip(rng.uniform(0, 1 - signal, size=n) + signal * wrong, 0, 1)
    return wrong, scores


def srs(wrong: np.ndarray, scores: np.ndarray, idx) -> StratumSample:
    idx = list(idx)
    return StratumSample(len(wrong), float(scores.sum()), tuple(scores[idx].tolist()), tuple(wrong[idx].tolist()))


def test_fixed_lambda_is_design_unbiased_over_every_sample():
    wrong = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0], bool)
    scores = np.array([0.9, 0.2, 0.1, 0.4, 0.6, 0.0, 0.3, 0.8, 0.2])
    estimates = [_point([srs(wrong, scores, idx)], 9, 0.7) for idx in combinations(range(9), 4)]
    assert np.mean(estimates) == pytest.approx(wrong.mean(), abs=1e-12)


def test_lambda_zero_is_the_design_only_estimate():
    wrong, scores = population(400, 0.2, signal=0.5, seed=1)
    sample = srs(wrong, scores, range(0, 400, 4))
    result = judge_assisted_rate([sample], lam=0.0)
    design = estimate_rate([StratumCount(400, 100, sample.errors)])
    assert result.design_only.value == pytest.approx(design.rate)
    assert (result.design_only.low, result.design_only.high) == pytest.approx((design.low, design.high))
    assert result.with_judges.value == pytest.approx(design.rate)


def test_a_good_judge_narrows_the_interval_and_a_judge_at_chance_never_widens_it():
    wrong, scores = population(2000, 0.2, signal=0.6, seed=2)
    good = judge_assisted_rate([srs(wrong, scores, range(0, 2000, 10))])
    assert good.used_judges and good.lam > 0
    assert good.width_ratio < 0.8
    wrong, scores = population(2000, 0.2, signal=0.0, seed=3)
    for start in range(5):
        chance = judge_assisted_rate([srs(wrong, scores, range(start, 2000, 10))])
        assert chance.width_ratio <= 1.0


def test_too_few_errors_falls_back_to_the_design_only_interval():
    wrong, scores = population(1000, 0.01, signal=0.8, seed=4)
    result = judge_assisted_rate([srs(wrong, scores, range(0, 1000, 10))])
    assert result.errors_found < MIN_ERRORS
    assert not result.used_judges and result.lam == 0.0 and "errors" in result.reason
    assert result.with_judges == result.design_only


def test_the_jackknife_is_the_delete_one_recomputation():
    rng = np.random.default_rng(5)
    strata = []
    for size, n in ((500, 40), (300, 30), (50, 50)):  # the last one a census
        f = rng.uniform(size=n)
        strata.append(StratumSample(size, float(f.mean() * size), tuple(f), tuple(rng.uniform(size=n) < f / 2)))
    total = 850

    def tuned(parts):
        a, _, syf, sff = _moments(parts, total)
        return max(float(np.sum(a * syf) / np.sum(a * sff)), 0.0)

    brute = 0.0
    for h, s in enumerate(strata[:2]):
        estimates = []
        for i in range(s.sample):
            cut = StratumSample(s.population, s.score_total, s.scores[:i] + s.scores[i + 1:], s.wrong[:i] + s.wrong[i + 1:])
            parts = strata[:h] + [cut] + strata[h + 1:]
            estimates.append(_point(parts, total, tuned(parts)))
        e = np.array(estimates)
        brute += (1 - s.sample / s.population) * (s.sample - 1) / s.sample * float(np.sum((e - e.mean()) ** 2))
    assert _jackknife(strata, total, None) == pytest.approx(brute, rel=1e-9)


def test_a_census_stratum_adds_its_known_errors():
    wrong, scores = population(600, 0.2, signal=0.5, seed=6)
    census = StratumSample(50, 20.0, tuple([0.4] * 50), tuple([True] * 10 + [False] * 40), "census")
    sampled = srs(wrong, scores, range(0, 600, 5))
    both = judge_assisted_rate([census, sampled])
    alone = judge_assisted_rate([sampled], lam=both.lam)
    assert both.with_judges.value == pytest.approx((10 + 600 * alone.with_judges.value) / 650)


def test_coverage_on_simulated_reviews():
    wrong, scores = population(1500, 0.15, signal=0.5, seed=7)
    rng = np.random.default_rng(8)
    hits = []
    for _ in range(300):
        r = judge_assisted_rate([srs(wrong, scores, rng.choice(1500, size=120, replace=False))])
        hits.append(r.with_judges.low <= wrong.mean() <= r.with_judges.high)
    assert np.mean(hits) >= 0.93


@pytest.mark.parametrize("kwargs, message", [
    (dict(population=10, score_total=1.0, scores=(0.1,), wrong=(True, False)), "scores for"),
    (dict(population=10, score_total=1.0, scores=(1.5,), wrong=(True,)), "outside"),
    (dict(population=1, score_total=1.0, scores=(0.1, 0.2), wrong=(True, False)), "smaller"),
    (dict(population=5, score_total=1.0, scores=(), wrong=()), "no settled"),
])
def test_bad_strata_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        StratumSample(**kwargs)


def test_reviews_for_a_target_width_follow_the_sample_size_of_a_mean():
    from stats_cli.stats.judge_assisted import reviews_for

    # at its own half-width the projection is the current sample; half the width needs about four times as many
    assert reviews_for(0.05, current=0.05, n=100, population=10 ** 6) == 100
    assert reviews_for(0.025, current=0.05, n=100, population=10 ** 6) == pytest.approx(400, abs=2)
    assert reviews_for(0.001, current=0.05, n=100, population=2000) <= 2000
    assert reviews_for(0.02, current=0.0, n=100, population=2000) is None
    wrong, scores = population(2000, 0.2, signal=0.6, seed=2)
    result = judge_assisted_rate([srs(wrong, scores, range(0, 2000, 10))])
    plan = result.reviews_for(0.02)
    assert plan["with_judges"] < plan["design_only"]
