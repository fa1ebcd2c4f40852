"""How good the ensemble's flags are, from the same stratified sample: precision, recall, errors missed.

With strata split by the flag, three questions have design-based answers:

* precision among flagged items = the error rate of the flagged strata (an item's flag is right
  exactly when its original label is wrong), with the stratified interval of :mod:`stats_cli.stats.error_rate`;
* errors left among unflagged items = N_unflagged × the unflagged strata's rate, with its interval;
* recall = F / (F + U), the share of the project's errors the ensemble flagged, F and U being the
  error counts of the flagged and unflagged parts. Recall rises with F and falls with U, so its
  interval takes the matching ends of F's and U's intervals. Each of those two is computed at level
  1 − α/2 (Bonferroni) so that both hold together with probability ≥ 1 − α; a part reviewed in full
  (a census, the usual case for the flagged items) has no sampling error and keeps the whole α for
  the other. Conservative by construction; coverage is measured in :mod:`stats_cli.stats.estimate_sim`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from stats_cli.stats.error_rate import RateEstimate, StratumCount, estimate_rate

__all__ = ["DetectorEstimate", "RecallEstimate", "detector_estimates"]


@dataclass(frozen=True)
class RecallEstimate:
    """Share of the project's errors among flagged items; ``rate`` is None when no error was found at all."""

    rate: float | None
    low: float
    high: float
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "low": self.low, "high": self.high, "confidence": self.confidence}


@dataclass(frozen=True)
class DetectorEstimate:
    """Precision among flagged, errors left among unflagged, and recall, each with its interval."""

    precision: RateEstimate
    unflagged: RateEstimate
    recall: RecallEstimate

    @property
    def errors_left(self) -> float:
        return self.unflagged.errors_estimate

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision.to_json(), "unflagged_rate": self.unflagged.to_json(),
                "errors_left": self.errors_left, "errors_left_low": self.unflagged.errors_low,
                "errors_left_high": self.unflagged.errors_high, "recall": self.recall.to_json()}


def _is_census(strata: Sequence[StratumCount]) -> bool:
    return all(s.sample == s.population for s in strata)


def _ratio(num: float, den: float, *, empty: float) -> float:
    return num / den if den > 0 else empty


def detector_estimates(
    flagged: Sequence[StratumCount], unflagged: Sequence[StratumCount], *, confidence: float = 0.95
) -> DetectorEstimate:
    """Precision, errors left and recall of the flags (see the module docstring for the intervals)."""
    if not flagged or not unflagged:
        raise ValueError("precision and recall need a sample from both the flagged and the unflagged items")
    precision = estimate_rate(flagged, confidence=confidence)
    unflagged_rate = estimate_rate(unflagged, confidence=confidence)
    sampled_parts = sum(not _is_census(part) for part in (flagged, unflagged))
    joint = 1.0 - (1.0 - confidence) / max(sampled_parts, 1)
    f_part = estimate_rate(flagged, confidence=joint)
    u_part = estimate_rate(unflagged, confidence=joint)
    f_point, u_point = precision.errors_estimate, unflagged_rate.errors_estimate
    point = _ratio(f_point, f_point + u_point, empty=float("nan"))
    low = _ratio(f_part.errors_low, f_part.errors_low + u_part.errors_high, empty=0.0)
    high = _ratio(f_part.errors_high, f_part.errors_high + u_part.errors_low, empty=1.0)
    recall = RecallEstimate(rate=None if point != point else point, low=low, high=high, confidence=confidence)
    return DetectorEstimate(precision=precision, unflagged=unflagged_rate, recall=recall)
