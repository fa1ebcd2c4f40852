"""The judge-assisted error rate: every item's P(label wrong) and the experts' sample in one interval.

The judges score all N audited items; the experts settle a random (possibly stratified) sample. The
model-assisted difference estimator (Särndal, Swensson & Wretman 1992, ch. 6) — prediction-powered
inference with power tuning (PPI++, Angelopoulos, Duchi & Zrnic 2024) in machine-learning terms — takes
the scores' mean over every item and corrects it by the sample's mean residual:

    rate(λ) = Σ_h W_h [ ȳ_h + λ (F̄_h − f̄_h) ],   W_h = N_h / N,

F̄_h the mean score of stratum h's N_h items, ȳ_h and f̄_h the sample's mean verdict and score. It is
design-unbiased for any fixed λ whatever the scores' quality; λ = 0 is today's design-only estimate.
Its variance Σ_h W_h² (1 − n_h/N_h) S²_h(y − λf) / n_h (finite population correction per stratum) is
smallest at λ* = Σ_h a_h S_h(y, f) / Σ_h a_h S²_h(f), a_h = W_h² (1 − n_h/N_h) / n_h, and is then the
design-only variance × (1 − ρ²). Interval: t around the estimate with min(n − H, errors, right labels)
degrees of freedom (the residual variance rests on the rarer outcome), its variance the stratified
delete-one jackknife with λ re-tuned in each replicate (:func:`_jackknife`); both ends clipped to what
the sample makes certain.

When the judges are not used (λ = 0, the design-only estimate and its exact / gamma interval from
:func:`backend.estimates.error_rate.estimate_rate`, with the reason said): the sample found fewer than
:data:`MIN_ERRORS` errors or fewer than that many right labels (the residual variance rests on too few
errors and the t interval under-covers: measured in ``bench/bench_certified.py``), a sampled stratum
has fewer than 3 reviewed items, λ* ≤ 0 (scores do not track the verdicts), the residuals are too
skewed for a t interval (Cochran's rule, n > 25 G₁²), or the judge-assisted interval is not narrower
than the design-only one. So it is never wider than the design-only interval.

Why by hand and not ``ppi-python``'s ``ppi_mean_ci`` (compared in the bench): it treats the scored items
as a sample from an infinite population (adds λ² Var(f)/N for a mean that an audit knows exactly), has
no finite population correction (a review of 300 of 1,000 items has 0.7 × its variance) and its weights
are importance weights, not a stratified design's variance. With those, what is left is the survey
sampler's regression-coefficient difference estimator: a few lines of numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from backend.estimates.error_rate import StratumCount, estimate_rate

__all__ = ["MIN_ERRORS", "METHOD", "TARGETS", "StratumSample", "Estimate", "JudgeAssisted", "judge_assisted_rate",
           "reviews_for"]

#: Errors (and right labels) the settled sample must hold before the judges' residuals are trusted.
MIN_ERRORS = 5
#: Cochran's rule (Sampling Techniques, 3rd ed., §2.15): a mean is near-normal once n > 25 G₁².
COCHRAN = 25.0
#: Half-widths (as rates) the report and ``estimate FILE`` project the reviews for: ±2 and ±3 points.
TARGETS = (0.02, 0.03)
METHOD = ("difference estimator with the judges' scores on every item, power-tuned λ, "
          "finite population correction, jackknife t interval")


@dataclass(frozen=True)
class StratumSample:
    """One stratum: its N_h items' summed score, and the settled sample's scores and verdicts."""

    population: int
    score_total: float
    scores: tuple[float, ...]
    wrong: tuple[bool, ...]
    name: str = ""

    def __post_init__(self) -> None:
        label = self.name or "?"
        if len(self.scores) != len(self.wrong):
            raise ValueError(f"stratum {label}: {len(self.scores)} scores for {len(self.wrong)} verdicts")
        if not self.wrong:
            raise ValueError(f"stratum {label}: no settled item")
        if self.population < len(self.wrong):
            raise ValueError(f"stratum {label}: population {self.population} is smaller than its sample {len(self.wrong)}")
        if any(not 0.0 <= s <= 1.0 for s in self.scores):
            raise ValueError(f"stratum {label}: a score outside [0, 1]")
        if not 0.0 <= self.score_total <= self.population + 1e-9:
            raise ValueError(f"stratum {label}: score total {self.score_total} outside [0, {self.population}]")

    @property
    def sample(self) -> int:
        return len(self.wrong)

    @property
    def errors(self) -> int:
        return int(sum(self.wrong))


@dataclass(frozen=True)
class Estimate:
    """A rate with its interval."""

    value: float
    low: float
    high: float

    def to_json(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class JudgeAssisted:
    """Both estimates of one population's error rate, and what the judge-assisted one rests on."""

    design_only: Estimate
    with_judges: Estimate
    lam: float
    used_judges: bool
    reason: str
    population: int
    sample: int
    errors_found: int
    confidence: float
    design_method: str
    method: str = field(default=METHOD)

    @property
    def width_ratio(self) -> float | None:
        """With-judges width ÷ design-only width (None when the design-only width is 0)."""
        base = self.design_only.high - self.design_only.low
        return None if base <= 0 else (self.with_judges.high - self.with_judges.low) / base

    def reviews_for(self, half_width: float) -> dict[str, int | None]:
        """Reviews in all that each estimate needs for ``half_width`` (:func:`reviews_for`; None: no basis)."""
        return {name: reviews_for(half_width, current=(est.high - est.low) / 2, n=self.sample,
                                  population=self.population, confidence=self.confidence)
                for name, est in (("design_only", self.design_only), ("with_judges", self.with_judges))}

    def to_json(self) -> dict[str, Any]:
        counts = {k: getattr(self.with_judges, k) * self.population for k in ("value", "low", "high")}
        return {"design_only": {**self.design_only.to_json(), "method": self.design_method},
                "with_judges": {**self.with_judges.to_json(), "method": self.method if self.used_judges
                                else self.design_method},
                "errors_with_judges": counts, "lambda": self.lam, "used_judges": self.used_judges,
                "reason": self.reason, "population": self.population, "reviewed": self.sample,
                "errors_found": self.errors_found, "confidence": self.confidence, "width_ratio": self.width_ratio,
                "reviews_for": {f"{t:g}": self.reviews_for(t) for t in TARGETS}}


def _moments(strata: Sequence[StratumSample], total: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per stratum: a_h, S²(y), S(y, f), S²(f) (census strata have a_h = 0)."""
    a, syy, syf, sff = [], [], [], []
    for s in strata:
        y, f = np.asarray(s.wrong, dtype=float), np.asarray(s.scores, dtype=float)
        n = len(y)
        w = s.population / total
        a.append(w * w * (1 - n / s.population) / n)
        cov = np.cov(np.vstack([y, f]), ddof=1) if n > 1 else np.zeros((2, 2))
        syy.append(cov[0, 0])
        syf.append(cov[0, 1])
        sff.append(cov[1, 1])
    return np.array(a), np.array(syy), np.array(syf), np.array(sff)


def _jackknife(strata: Sequence[StratumSample], total: int, lam: float | None) -> float:
    """Stratified delete-one jackknife variance of the estimate, λ re-tuned on each replicate (None) or fixed.

    Why the jackknife and not the plug-in Σ a_h S²_h(y − λ̂f): the plug-in ignores that λ̂ is fitted on the same
    sample; the jackknife carries it (Wolter, Introduction to Variance Estimation, ch. 4) and measured
    closer to 95 % on small samples (``bench/bench_certified.py``).
    """
    a, _, syf, sff = _moments(strata, total)
    weights = np.array([s.population / total for s in strata])
    means = [(float(np.mean(s.wrong)), float(np.mean(s.scores)), s.score_total / s.population) for s in strata]
    variance = 0.0
    for h, s in enumerate(strata):
        n = s.sample
        if n >= s.population:
            continue
        y, f = np.asarray(s.wrong, float), np.asarray(s.scores, float)
        m_y, m_f = (y.sum() - y) / (n - 1), (f.sum() - f) / (n - 1)
        c_yf = ((y * f).sum() - y * f - (n - 1) * m_y * m_f) / (n - 2)
        c_ff = ((f * f).sum() - f * f - (n - 1) * m_f * m_f) / (n - 2)
        a_i = weights[h] ** 2 * (1 - (n - 1) / s.population) / (n - 1)
        if lam is None:
            top = float(np.sum(a * syf)) - a[h] * syf[h] + a_i * c_yf
            bottom = float(np.sum(a * sff)) - a[h] * sff[h] + a_i * c_ff
            lams = np.maximum(np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), 0.0), 0.0)
        else:
            lams = np.full(n, lam)
        rest_y = sum(weights[g] * m[0] for g, m in enumerate(means) if g != h)
        rest_f = sum(weights[g] * (m[2] - m[1]) for g, m in enumerate(means) if g != h)
        theta = rest_y + lams * rest_f + weights[h] * (m_y + lams * (means[h][2] - m_f))
        variance += (1 - n / s.population) * (n - 1) / n * float(np.sum((theta - theta.mean()) ** 2))
    return variance


def _point(strata: Sequence[StratumSample], total: int, lam: float) -> float:
    return float(sum(s.population / total * (np.mean(s.wrong) + lam * (s.score_total / s.population - np.mean(s.scores)))
                     for s in strata))


def _skewness(strata: Sequence[StratumSample], lam: float) -> float:
    """Sample skewness G₁ of the residuals y − λf, each centred in its stratum (census strata left out)."""
    parts = [np.asarray(s.wrong, float) - lam * np.asarray(s.scores, float) for s in strata if s.sample < s.population]
    e = np.concatenate([p - p.mean() for p in parts]) if parts else np.zeros(0)
    sd = float(np.sqrt(np.mean(e * e))) if len(e) else 0.0
    return 0.0 if sd == 0 else float(np.mean(e ** 3) / sd ** 3)


def _why_not(strata: Sequence[StratumSample], lam: float) -> str:
    errors = sum(s.errors for s in strata)
    n = sum(s.sample for s in strata)
    if min(errors, n - errors) < MIN_ERRORS:
        return (f"{errors} errors and {n - errors} right labels in the sample; the judges' residuals need at least "
                f"{MIN_ERRORS} of each")
    if any(s.sample < 3 for s in strata if s.sample < s.population):
        return "a sampled stratum has fewer than 3 settled items (its jackknife needs 3)"
    if lam <= 0:
        return "the judges' scores do not track the experts' verdicts in the sample (λ ≤ 0)"
    skew = _skewness(strata, lam)
    if n < COCHRAN * skew * skew:
        return (f"the residuals are too skewed for a t interval on {n} reviews (skewness {skew:.1f}: Cochran's rule "
                f"asks for {COCHRAN:g} × skewness² = {COCHRAN * skew * skew:.0f})")
    return ""


def judge_assisted_rate(strata: Sequence[StratumSample], *, confidence: float = 0.95,
                        lam: float | None = None) -> JudgeAssisted:
    """Design-only and judge-assisted error rates of the strata's union (``lam``: fixed λ, default tuned)."""
    if not strata:
        raise ValueError("a design needs at least one stratum")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    total = sum(s.population for s in strata)
    design = estimate_rate([StratumCount(s.population, s.sample, s.errors, s.name) for s in strata],
                           confidence=confidence)
    base = Estimate(design.rate, design.low, design.high)
    a, _, syf, sff = _moments(strata, total)
    tuned = float(np.sum(a * syf) / np.sum(a * sff)) if np.sum(a * sff) > 0 else 0.0
    chosen = max(tuned, 0.0) if lam is None else float(lam)
    n = sum(s.sample for s in strata)
    common = dict(design_only=base, population=total, sample=n, errors_found=sum(s.errors for s in strata),
                  confidence=float(confidence), design_method=design.method)
    reason = _why_not(strata, chosen) if lam is None else ""
    if reason:
        return JudgeAssisted(with_judges=base, lam=0.0, used_judges=False, reason=reason, **common)
    value = _point(strata, total, chosen)
    variance = _jackknife(strata, total, lam)
    found = sum(s.errors for s in strata)
    df = max(min(n - len(strata), found, n - found), 1)  # the residual variance rests on the rarer outcome
    half = float(student_t.ppf(0.5 + confidence / 2, df)) * np.sqrt(max(variance, 0.0))
    floor = sum(s.errors for s in strata) / total  # what the sample makes certain
    ceiling = sum(s.population - (s.sample - s.errors) for s in strata) / total
    low, high = max(floor, value - half), min(ceiling, value + half)
    judged = Estimate(min(max(value, low), high), low, high)
    if lam is None and judged.high - judged.low >= base.high - base.low:
        return JudgeAssisted(with_judges=base, lam=0.0, used_judges=False,
                             reason="the judge-assisted interval is not narrower than the design-only one", **common)
    return JudgeAssisted(with_judges=judged, lam=chosen, used_judges=True, reason="", **common)


def reviews_for(half_width: float, *, current: float, n: int, population: int, confidence: float = 0.95) -> int | None:
    """Reviews in all for a ±``half_width`` interval, planned up front from the current one (``current`` at ``n``).

    The unit variance S² ≈ (h / z)² · n / (1 − n/N) read off the current half-width h, then
    n' = S² (z/W)² / (1 + S² (z/W)² / N): the finite-population sample size of a mean. A projection
    for planning the next batch, not a guarantee: the interval of the reviews then settled is what counts
    (whether stopping when it is narrow keeps the coverage is measured in ``bench/bench_until_width.py``).
    None when the current interval has no width to read (a census, or nothing sampled).
    """
    if not 0 < half_width < 1:
        raise ValueError(f"half_width must be in (0, 1), got {half_width}")
    if n <= 0 or n >= population or current <= 0:
        return None
    z = float(norm.ppf(0.5 + confidence / 2))
    unit = (current / z) ** 2 * n / (1 - n / population)
    need = unit * (z / half_width) ** 2
    return int(min(population, np.ceil(need / (1 + need / population))))
