"""Error-rate bounds: exact Clopper-Pearson, exact finite-population (hypergeometric), and Nahum's CP+FPC.

Nahum et al. (2024, §5.1 and App. G.1) bound a dataset's label-error rate from k errors found in
n re-annotated items: a 95 % Clopper-Pearson interval "adjusted by a finite population
correction" for a dataset of N items. The paper does not spell out the adjustment; the form that
reproduces its Table 2 lower bounds from its own counts (k of n = 160) is to shrink the exact
interval's half-widths around p̂ = k/n by FPC = sqrt((N − n) / (N − 1)):

    low = p̂ − (p̂ − CP_low)·FPC,   high = p̂ + (CP_high − p̂)·FPC

(MNBM 27/160 of 2,500 → 11.60 %, BEGIN 34/160 of 836 → 15.80 %, VitaminC 13/160 of 63,054 →
4.40 %, PAWS 10/160 of 8,000 → 3.07 % where the paper prints 3.0; see tests). The exact interval
comes from scipy's beta quantiles; the FPC step is hand-written because no library offers it. When the sample is
the whole population the interval collapses to p̂, as it should.

That shrunk interval is kept as :func:`nahum_table2_interval` because it reproduces the paper, but it
is *not* exact: at N = 500, n = 400 its coverage falls to 0.938 for some error counts. Where N is
known the exact answer is :func:`hypergeometric_interval`: n items drawn without replacement from N
holding D errors give k ~ Hypergeometric(N, D, n), and inverting the two tails over D = 0 … N (scipy's
``hypergeom``) gives bounds whose coverage is ≥ the confidence for every D. The inversion loop over D is
hand-written (scipy offers the distribution, not the interval).
"""

from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass
from typing import Any

from scipy.stats import beta, hypergeom

__all__ = ["ErrorRateBounds", "clopper_pearson", "fpc_factor", "nahum_table2_interval", "hypergeometric_interval",
           "error_rate_bounds"]


def _check(k: int, n: int, confidence: float) -> None:
    if n < 1:
        raise ValueError(f"sample size must be at least 1, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"errors must be between 0 and the sample size {n}, got {k}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")


def clopper_pearson(k: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval for k successes in n trials: scipy's beta quantiles.

    The closed form (the same numbers as ``binomtest(...).proportion_ci(method="exact")``, which finds
    them by root search) is about fifty times faster, which the coverage simulation needs.
    """
    _check(k, n, confidence)
    tail = (1.0 - confidence) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1.0 - tail, k + 1, n - k))
    return low, high


def fpc_factor(n: int, population: int) -> float:
    """sqrt((N − n) / (N − 1)): the share of sampling spread left when n of N items were drawn."""
    if population < n:
        raise ValueError(f"population ({population}) must be at least the sample size ({n})")
    if population <= 1:
        return 0.0
    return math.sqrt((population - n) / (population - 1))


def nahum_table2_interval(k: int, n: int, population: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson interval with half-widths scaled by :func:`fpc_factor`: reproduces Nahum's Table 2.

    Not exact (see the module docstring); the report and ``estimate`` use :func:`hypergeometric_interval`.
    """
    low, high = clopper_pearson(k, n, confidence=confidence)
    rate = k / n
    factor = fpc_factor(n, population)
    return max(0.0, rate - (rate - low) * factor), min(1.0, rate + (high - rate) * factor)


@lru_cache(maxsize=8192)  # pure in its arguments; simulations ask the same (k, n, N) again and again
def hypergeometric_interval(k: int, n: int, population: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided interval for the error *rate* D/N of a population of N when n drawn hold k errors.

    Lower end: the smallest D with P(X ≥ k | D) > α/2; upper end: the largest D with P(X ≤ k | D) > α/2,
    X ~ Hypergeometric(N, D, n). A census (n = N) gives the observed rate exactly.
    """
    _check(k, n, confidence)
    if population < n:
        raise ValueError(f"population ({population}) must be at least the sample size ({n})")
    tail = (1.0 - confidence) / 2
    first, last = k, population - (n - k)  # D is at least the errors seen, at most N minus the right items seen
    low_d = _first_true(first, last, lambda d: hypergeom.sf(k - 1, population, d, n) > tail)
    high_d = _first_true(first, last, lambda d: hypergeom.cdf(k, population, d, n) <= tail) - 1
    return low_d / population, max(high_d, low_d) / population


def _first_true(first: int, last: int, test) -> int:
    """Smallest d in [first, last] where the monotone ``test`` holds (last + 1 when none): bisection."""
    lo, hi = first, last + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if test(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


@dataclass(frozen=True)
class ErrorRateBounds:
    """The observed rate, its exact interval and, with a population size, the exact finite-population interval
    (``exact_low``/``exact_high``) and Nahum's CP+FPC one (``fpc_low``/``fpc_high``, Table 2)."""

    errors: int
    sample: int
    confidence: float
    rate: float
    cp_low: float
    cp_high: float
    population: int | None = None
    fpc_low: float | None = None
    fpc_high: float | None = None
    exact_low: float | None = None
    exact_high: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n_errors": self.errors,
            "sample": self.sample,
            "confidence": self.confidence,
            "rate": self.rate,
            "cp_low": self.cp_low,
            "cp_high": self.cp_high,
        }
        if self.population is not None:
            out.update(population=self.population, fpc_low=self.fpc_low, fpc_high=self.fpc_high,
                       exact_low=self.exact_low, exact_high=self.exact_high)
        return out


def error_rate_bounds(
    errors: int, sample: int, *, population: int | None = None, confidence: float = 0.95
) -> ErrorRateBounds:
    """Everything ``audit-stats bounds`` reports for k errors in n reviewed items of N."""
    cp_low, cp_high = clopper_pearson(errors, sample, confidence=confidence)
    fpc_low = fpc_high = exact_low = exact_high = None
    if population is not None:
        fpc_low, fpc_high = nahum_table2_interval(errors, sample, population, confidence=confidence)
        exact_low, exact_high = hypergeometric_interval(errors, sample, population, confidence=confidence)
    return ErrorRateBounds(
        errors=int(errors),
        sample=int(sample),
        confidence=float(confidence),
        rate=errors / sample,
        cp_low=cp_low,
        cp_high=cp_high,
        population=population,
        fpc_low=fpc_low,
        fpc_high=fpc_high,
        exact_low=exact_low,
        exact_high=exact_high,
    )
