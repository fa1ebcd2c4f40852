"""The confidence threshold a lead should pick to reach a target precision of the flags.

Report-specific: it reads reviewed, flagged items (confidence, whether the experts confirmed the
error). Two answers, because a point estimate on 12 items is not a promise:

* observed: the lowest threshold whose observed precision meets the target (a description, no promise);
* assured: fixed-sequence testing. Thresholds are tested in a fixed order, from the highest down, each
  with the one-sided exact test "precision ≥ target" at level α/2 (its Clopper-Pearson lower bound ≥
  target); the first failure stops the scan. Scanning every threshold and keeping any that passes
  (the former rule) finds a threshold in 4–6 % of runs when the true precision is just below the
  target everywhere; a fixed sequence keeps that error at ≤ α/2 (Bauer 1991; the order depends only on
  the confidences, never on the outcomes). The scan starts at the highest threshold that keeps enough
  items for the test to be able to pass at all (n with target^n < α/2), since a start with fewer would
  fail by construction and stop the sequence. Shown by ``tests/stats_cli/report/test_threshold.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.stats import beta


@dataclass(frozen=True)
class ThresholdChoice:
    """A threshold, the precision above it, how many reviewed flags it keeps, and the exact lower bound."""

    threshold: float
    precision: float
    kept: int
    confirmed: int
    precision_low: float


def min_items_to_pass(target: float, *, confidence: float = 0.95) -> int:
    """Fewest items whose exact lower bound can reach ``target`` (all of them confirmed)."""
    tail = (1.0 - confidence) / 2
    return 1 if target <= tail else math.ceil(math.log(tail) / math.log(target) - 1e-12)


def _steps(confidences: Sequence[float], confirmed: Sequence[bool], confidence: float) -> list[ThresholdChoice]:
    """Every distinct threshold, highest first, with what it keeps."""
    pairs = sorted(zip((float(c) for c in confidences), (bool(x) for x in confirmed)), key=lambda p: -p[0])
    cuts, kept, hits = [], 0, 0
    for i, (conf, ok) in enumerate(pairs):
        kept += 1
        hits += ok
        if i + 1 < len(pairs) and pairs[i + 1][0] == conf:
            continue  # a threshold keeps every item with this exact confidence
        cuts.append((conf, kept, hits))
    if not cuts:
        return []
    n, k = np.array([c[1] for c in cuts]), np.array([c[2] for c in cuts])
    # Clopper-Pearson lower ends, all at once (stats_cli.stats.bounds.clopper_pearson's formula, vectorised)
    lows = np.where(k > 0, beta.ppf((1.0 - confidence) / 2, np.maximum(k, 1), n - k + 1), 0.0)
    return [ThresholdChoice(conf, h / m, m, h, float(low)) for (conf, m, h), low in zip(cuts, lows)]


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
    confidence : float
        The assured rule's error is at most (1 − confidence) / 2.
    """
    if not 0.0 < target <= 1.0:
        raise ValueError(f"target precision must be in (0, 1], got {target}")
    if len(confidences) != len(confirmed):
        raise ValueError("confidences and confirmed must have the same length")
    steps = _steps(confidences, confirmed, confidence)
    passing = [c for c in steps if c.precision >= target]
    observed = passing[-1] if passing else None
    assured = None
    start = min_items_to_pass(target, confidence=confidence)
    for choice in (c for c in steps if c.kept >= start):
        if choice.precision_low < target:
            break  # fixed sequence: the first failure ends the scan
        assured = choice
    return observed, assured
