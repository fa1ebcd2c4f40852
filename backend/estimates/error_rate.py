"""The project's label-error rate from a (stratified) random sample, with a valid interval.

A sampling design splits the N audited items into strata (flagged / unflagged by the ensemble, or
one stratum for a simple random sample), draws n_h of the N_h items of each at random without
replacement, and the experts find k_h errors among them. The design-weighted estimate is

    rate = Σ W_h · k_h / n_h,   W_h = N_h / N.

Interval: :func:`backend.estimates.stratified_interval.stratified_interval` — Fay & Feuer's gamma interval
over the sampled strata, census strata added as known counts, the exact hypergeometric interval when
a single stratum is sampled (so a simple random sample of a known N gets the exact finite-population
interval). Why gamma and not MOVER or Korn–Graubard is measured and said there; coverage at each end is
checked by :mod:`stats_cli.stats.estimate_sim` (tests and ``bench/bench_estimate_coverage.py``). Each stratum
also keeps its own exact (hypergeometric) interval for the per-stratum table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from backend.estimates.bounds import hypergeometric_interval
from backend.estimates.stratified_interval import GAMMA, METHODS, stratified_interval

__all__ = ["METHOD", "StratumCount", "StratumEstimate", "RateEstimate", "estimate_rate", "parse_stratum"]

METHOD = GAMMA


@dataclass(frozen=True)
class StratumCount:
    """One stratum of a design: N_h items, n_h of them drawn at random and reviewed, k_h errors found."""

    population: int
    sample: int
    errors: int
    name: str = ""

    def __post_init__(self) -> None:
        if self.sample < 1:
            raise ValueError(f"stratum {self.name or '?'}: sample size must be at least 1, got {self.sample}")
        if not 0 <= self.errors <= self.sample:
            raise ValueError(f"stratum {self.name or '?'}: errors must be between 0 and {self.sample}, got {self.errors}")
        if self.population < self.sample:
            raise ValueError(f"stratum {self.name or '?'}: population {self.population} is smaller than its "
                             f"sample {self.sample}")


@dataclass(frozen=True)
class StratumEstimate:
    """A stratum's share W_h of the population, its observed rate and its own exact (hypergeometric) interval."""

    name: str
    population: int
    sample: int
    errors: int
    weight: float
    rate: float
    low: float
    high: float

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "population": self.population, "sample": self.sample, "errors": self.errors,
                "weight": self.weight, "rate": self.rate, "low": self.low, "high": self.high,
                "inclusion_probability": self.sample / self.population}


@dataclass(frozen=True)
class RateEstimate:
    """The design-weighted error rate of a population, its interval, and the implied number of errors."""

    rate: float
    low: float
    high: float
    confidence: float
    population: int
    sample: int
    strata: tuple[StratumEstimate, ...]
    method: str = METHOD

    @property
    def errors_estimate(self) -> float:
        return self.rate * self.population

    @property
    def errors_low(self) -> float:
        return self.low * self.population

    @property
    def errors_high(self) -> float:
        return self.high * self.population

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "low": self.low, "high": self.high, "confidence": self.confidence,
                "method": self.method, "population": self.population, "sample": self.sample,
                "errors_estimate": self.errors_estimate, "errors_low": self.errors_low,
                "errors_high": self.errors_high, "strata": [s.to_json() for s in self.strata]}


def _stratum_estimate(count: StratumCount, total: int, confidence: float, index: int) -> StratumEstimate:
    low, high = hypergeometric_interval(count.errors, count.sample, count.population, confidence=confidence)
    return StratumEstimate(name=count.name or f"stratum {index + 1}", population=count.population,
                           sample=count.sample, errors=count.errors, weight=count.population / total,
                           rate=count.errors / count.sample, low=low, high=high)


def estimate_rate(strata: Sequence[StratumCount], *, confidence: float = 0.95, method: str = "gamma") -> RateEstimate:
    """Design-weighted rate Σ W_h p̂_h with its interval (``method``: gamma, korn-graubard or mover; see the docstring)."""
    if not strata:
        raise ValueError("a design needs at least one stratum")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    total = sum(s.population for s in strata)
    parts = tuple(_stratum_estimate(s, total, confidence, i) for i, s in enumerate(strata))
    rate = sum(p.weight * p.rate for p in parts)
    low, high = stratified_interval(strata, confidence=confidence, method=method)
    return RateEstimate(rate=rate, low=min(low, rate), high=max(high, rate), confidence=float(confidence),
                        population=total, sample=sum(s.sample for s in strata), strata=parts,
                        method=METHODS[method])


def parse_stratum(text: str) -> StratumCount:
    """``"N:n:errors"`` or ``"name=N:n:errors"`` -> a :class:`StratumCount` (ValueError with the reason)."""
    name, _, body = text.rpartition("=")
    fields = body.split(":")
    if len(fields) != 3:
        raise ValueError(f"--stratum {text!r}: expected N:n:errors, e.g. 9000:100:2")
    try:
        population, sample, errors = (int(f.strip()) for f in fields)
    except ValueError:
        raise ValueError(f"--stratum {text!r}: N, n and errors must be whole numbers") from None
    return StratumCount(population=population, sample=sample, errors=errors, name=name.strip())
