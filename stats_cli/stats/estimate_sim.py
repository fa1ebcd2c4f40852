"""Simulated projects for checking the estimator: known errors, a noisy detector, the real draw and estimate.

Each replicate builds a synthetic project of N items, each wrong with probability ``error_rate``;
the detector flags a wrong item with probability ``sensitivity`` and a right one with
``false_flag_rate``. The experts review the draw of :func:`backend.review.sampling.draw_sample`
(``random``: B items uniformly; ``stratified``: every flagged item plus B − N_flagged unflagged
ones, the in-tool design) and the interval comes from :func:`stats_cli.stats.error_rate.estimate_rate` —
the same code ``audit-stats estimate`` and the report run. Coverage is the share of replicates
whose interval holds the project's true error rate (errors / N of that very project).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from statistics import NormalDist, mean
from typing import Sequence

from backend.api import Candidate, FLAGGED_REVIEWED, draw_sample
from stats_cli.stats.detector import detector_estimates
from stats_cli.stats.error_rate import StratumCount, estimate_rate
from stats_cli.stats.stratified_interval import stratified_interval
import numpy as np

__all__ = ["Scenario", "CoverageResult", "simulate", "StratumDesign", "EndsResult", "simulate_design"]


@dataclass(frozen=True)
class Scenario:
    population: int = 2000
    error_rate: float = 0.05
    sensitivity: float = 0.7
    false_flag_rate: float = 0.03
    budget: int = 300
    flags_in_review: bool = True  # False: the flagged items are a sampled stratum too, not a census
    flag_confidence: float | None = None  # the ensemble's confidence on flagged / unflagged items (Neyman)
    agree_confidence: float | None = None


@dataclass(frozen=True)
class CoverageResult:
    design: str
    replicates: int
    coverage: float
    mean_width: float
    wald_coverage: float
    recall_coverage: float | None

    @property
    def monte_carlo_se(self) -> float:
        return math.sqrt(self.coverage * (1 - self.coverage) / self.replicates) if self.replicates else 0.0


def _project(scenario: Scenario, rng: random.Random) -> tuple[list[Candidate], set[str]]:
    errors: set[str] = set()
    candidates = []
    for i in range(scenario.population):
        wrong = rng.random() < scenario.error_rate
        flag_p = scenario.sensitivity if wrong else scenario.false_flag_rate
        flagged = rng.random() < flag_p
        conf = scenario.flag_confidence if flagged else scenario.agree_confidence
        candidates.append(Candidate(task_id=str(i), flagged=flagged, in_review=flagged and scenario.flags_in_review,
                                    confidence=conf))
        if wrong:
            errors.add(str(i))
    return candidates, errors


def _wald(strata: Sequence[StratumCount], confidence: float) -> tuple[float, float]:
    """The normal-approximation interval the design notes warn about, kept only for comparison."""
    total = sum(s.population for s in strata)
    rate = sum(s.population / total * s.errors / s.sample for s in strata)
    var = 0.0
    for s in strata:
        p, w = s.errors / s.sample, s.population / total
        fpc = (s.population - s.sample) / (s.population - 1) if s.population > 1 else 0.0
        var += w * w * p * (1 - p) / s.sample * fpc
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return rate - z * math.sqrt(var), rate + z * math.sqrt(var)


def _counts(draw_items, errors: set[str], strata_sizes) -> list[StratumCount]:
    found: dict[str, list[int]] = {}
    for item in draw_items:
        found.setdefault(item.stratum, []).append(item.task_id in errors)
    return [StratumCount(strata_sizes[name], len(hits), sum(hits), name) for name, hits in sorted(found.items())]


def simulate(scenario: Scenario, *, design: str, replicates: int = 300, seed: int = 0,
             confidence: float = 0.95) -> CoverageResult:
    """Coverage and mean width of the design's interval over ``replicates`` synthetic projects."""
    rng = random.Random(seed)
    hits = wald_hits = recall_hits = recall_runs = 0
    widths: list[float] = []
    for rep in range(replicates):
        candidates, errors = _project(scenario, rng)
        n_flagged = sum(c.flagged for c in candidates)
        census = design == "stratified" and scenario.flags_in_review
        budget = scenario.budget - n_flagged if census else scenario.budget
        draw = draw_sample(candidates, budget=max(budget, 1), design=design, seed=rep)
        strata = _counts(draw.items, errors, draw.strata)
        truth = len(errors) / scenario.population
        est = estimate_rate(strata, confidence=confidence)
        hits += est.low <= truth <= est.high
        widths.append(est.high - est.low)
        w_low, w_high = _wald(strata, confidence)
        wald_hits += w_low <= truth <= w_high
        flagged = [s for s in strata if s.name.startswith(FLAGGED_REVIEWED)]
        unflagged = [s for s in strata if not s.name.startswith(FLAGGED_REVIEWED)]
        if design == "stratified" and flagged and unflagged and errors:
            flagged_errors = sum(1 for c in candidates if c.flagged and c.task_id in errors)
            recall = detector_estimates(flagged, unflagged, confidence=confidence).recall
            recall_hits += recall.low <= flagged_errors / len(errors) <= recall.high
            recall_runs += 1
    return CoverageResult(design=design, replicates=replicates, coverage=hits / replicates,
                          mean_width=mean(widths), wald_coverage=wald_hits / replicates,
                          recall_coverage=recall_hits / recall_runs if recall_runs else None)


@dataclass(frozen=True)
class StratumDesign:
    """A fixed stratified design: per stratum its size N_h, draws n_h and true error probability."""

    name: str
    populations: tuple[int, ...]
    samples: tuple[int, ...]
    error_rates: tuple[float, ...]

    def __post_init__(self) -> None:
        if not len(self.populations) == len(self.samples) == len(self.error_rates) >= 1:
            raise ValueError("a design needs the same number (≥ 1) of populations, samples and error rates")


@dataclass(frozen=True)
class EndsResult:
    """Misses at each end of the interval over replicates, with width and Monte-Carlo s.e."""

    design: str
    method: str
    replicates: int
    lower_miss: float
    upper_miss: float
    mean_width: float

    @property
    def coverage(self) -> float:
        return 1.0 - self.lower_miss - self.upper_miss

    def se(self, share: float) -> float:
        return math.sqrt(share * (1 - share) / self.replicates)


def simulate_design(design: StratumDesign, *, method: str, replicates: int = 1000, seed: int = 0,
                    confidence: float = 0.95) -> EndsResult:
    """Draw each replicate's project (errors ~ Bin(N_h, p_h)) and sample (hypergeometric), count end misses.

    ``lower_miss`` is the share whose lower end lies above the project's true rate — the failure that
    matters for the headline "at least X % errors".
    """
    rng = np.random.default_rng(seed)
    pops, samples = np.array(design.populations), np.array(design.samples)
    low_miss = high_miss = 0
    widths = []
    for _ in range(replicates):
        errors = rng.binomial(pops, design.error_rates)
        found = rng.hypergeometric(errors, pops - errors, samples)
        strata = [StratumCount(int(N), int(n), int(k)) for N, n, k in zip(pops, samples, found)]
        truth = errors.sum() / pops.sum()
        low, high = stratified_interval(strata, confidence=confidence, method=method)  # estimate_rate's interval
        low_miss += low > truth
        high_miss += high < truth
        widths.append(high - low)
    return EndsResult(design=design.name, method=method, replicates=replicates, lower_miss=low_miss / replicates,
                      upper_miss=high_miss / replicates, mean_width=float(np.mean(widths)))
