"""The confidence threshold a lead should pick to reach a target precision of the flags.

Report-specific: it reads reviewed, flagged items (confidence, whether the experts confirmed the
error) and scans thresholds from high to low. Two answers, because a point estimate on 12 items is
not a promise: the lowest threshold whose observed precision meets the target, and the lowest whose
Clopper-Pearson lower bound does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from stats_cli.bounds import clopper_pearson


@dataclass(frozen=True)
class ThresholdChoice:
    """A threshold, the precision above it, how many reviewed flags it keeps, and the exact lower bound."""

    threshold: float
    precision: float
    kept: int
    confirmed: int
    precision_low: float


def threshold_for_precision(
    confidences: Sequence[float], confirmed: Sequence[bool], *, target: float = 0.8, confidence: float = 0.95
) -> tuple[ThresholdChoice | None, ThresholdChoice | None]:
    """``(observed, assured)`` choices; either is None when no threshold reaches ``target``.

    Parameters
    ----------
    confidences : sequence of float
        Ensemble confidence of each reviewed flagged item.
    confirmed : sequence of bool
        Whether the experts found the original label wrong on that item.
    target : float
        Wanted share of flags that are real errors, in (0, 1].
    """
    if not 0.0 < target <= 1.0:
        raise ValueError(f"target precision must be in (0, 1], got {target}")
    if len(confidences) != len(confirmed):
        raise ValueError("confidences and confirmed must have the same length")
    pairs = sorted(zip((float(c) for c in confidences), (bool(x) for x in confirmed)), key=lambda p: -p[0])
    observed = assured = None
    kept = hits = 0
    for i, (conf, ok) in enumerate(pairs):
        kept += 1
        hits += ok
        if i + 1 < len(pairs) and pairs[i + 1][0] == conf:
            continue  # a threshold keeps every item with this exact confidence
        low = clopper_pearson(hits, kept, confidence=confidence)[0]
        choice = ThresholdChoice(conf, hits / kept, kept, hits, low)
        if choice.precision >= target:
            observed = choice
        if low >= target:
            assured = choice
    return observed, assured
