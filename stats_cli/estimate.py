"""The project's label-error rate from a (stratified) random sample, with a valid interval.

A sampling design splits the N audited items into strata (flagged / unflagged by the ensemble, or
one stratum for a simple random sample), draws n_h of the N_h items of each at random without
replacement, and the experts find k_h errors among them. The design-weighted estimate is

    rate = Σ W_h · k_h / n_h,   W_h = N_h / N.

Interval: MOVER (method of variance estimates recovery; Zou & Donner 2008, Zou, Huang & Zhang 2009
for linear combinations of binomial proportions). Each stratum gets its own interval [l_h, u_h]
— the Clopper-Pearson exact interval with half-widths shrunk by its finite population correction,
exactly as ``audit-stats bounds`` and Nahum App. G.1 — and they are combined as

    low  = rate − sqrt(Σ W_h² (p̂_h − l_h)²),   high = rate + sqrt(Σ W_h² (u_h − p̂_h)²).

Why this method: a normal (Wald) interval gives a stratum with no error in its sample zero
variance, so the unflagged stratum — where errors are rare and a sample usually finds none —
adds no width and the interval under-covers. MOVER borrows each stratum's exact bounds, so a
0-of-n stratum still contributes its Clopper-Pearson upper end; with one stratum it *is* the
Clopper-Pearson + FPC interval of ``bounds`` (Nahum Table 2). Its coverage is measured by
:mod:`stats_cli.estimate_sim` (tests and ``bench/bench_estimate_coverage.py``). The
combination step is hand-written: no library offers MOVER for stratified proportions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from stats_cli.bounds import fpc_interval

__all__ = ["METHOD", "StratumCount", "StratumEstimate", "RateEstimate", "estimate_rate", "parse_stratum"]

METHOD = "MOVER over per-stratum Clopper-Pearson intervals with finite population correction"


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
    """A stratum's share W_h of the population, its observed rate and its own FPC-adjusted exact interval."""

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
    low, high = fpc_interval(count.errors, count.sample, count.population, confidence=confidence)
    return StratumEstimate(name=count.name or f"stratum {index + 1}", population=count.population,
                           sample=count.sample, errors=count.errors, weight=count.population / total,
                           rate=count.errors / count.sample, low=low, high=high)


def estimate_rate(strata: Sequence[StratumCount], *, confidence: float = 0.95) -> RateEstimate:
    """Design-weighted rate Σ W_h p̂_h with the MOVER interval (see the module docstring for why)."""
    if not strata:
        raise ValueError("a design needs at least one stratum")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    total = sum(s.population for s in strata)
    parts = tuple(_stratum_estimate(s, total, confidence, i) for i, s in enumerate(strata))
    rate = sum(p.weight * p.rate for p in parts)
    down = math.sqrt(sum((p.weight * (p.rate - p.low)) ** 2 for p in parts))
    up = math.sqrt(sum((p.weight * (p.high - p.rate)) ** 2 for p in parts))
    if len(parts) == 1:  # exactly bounds' arithmetic, without a round trip through sqrt(x²)
        low, high = parts[0].low, parts[0].high
    else:
        low, high = max(0.0, rate - down), min(1.0, rate + up)
    return RateEstimate(rate=rate, low=low, high=high, confidence=float(confidence), population=total,
                        sample=sum(s.sample for s in strata), strata=parts)


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
