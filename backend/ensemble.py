"""Ensemble arithmetic (Nahum et al. 2024, §3): normalise, average, decide, flag. Pure functions.

Each member gives a probability per class; the ensemble averages the normalised distributions of the
members that answered (members that errored are left out, not counted as uniform), predicts the argmax
and calls its averaged probability the confidence. An item is flagged as a suspected label error when
the prediction disagrees with the original label strongly enough and the confidence reaches the
threshold: higher confidence in a disagreeing prediction means a likelier label error (Nahum Fig. 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from backend.taskspec import TaskSpec

#: Confidence thresholds when none is given: 0.5 is the least a binary argmax can have; for the
#: ordinal SummEval experiments Nahum et al. start their confidence bins at 0.2 (App. A.4.1).
DEFAULT_THRESHOLD = {"binary": 0.5, "ordinal": 0.2, "nominal": 0.5}
DEFAULT_DELTA = 1


@dataclass(frozen=True)
class Decision:
    """The ensemble's verdict on one item."""

    prediction: str
    confidence: float
    flagged: bool


def normalize(probs: Mapping[str, float], labels: Sequence[str]) -> dict[str, float]:
    """Restrict ``probs`` to ``labels`` (missing labels get 0) and rescale to sum to 1.

    Raises ValueError on negative or non-finite values, or when no mass is left on the labels.
    """
    values = {}
    for label in labels:
        value = float(probs.get(label, 0.0))
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"probability of {label!r} must be finite and non-negative, got {value}")
        values[label] = value
    total = sum(values.values())
    if total <= 0:
        raise ValueError(f"no probability mass on the labels {list(labels)}")
    return {label: value / total for label, value in values.items()}


def average(distributions: Iterable[Mapping[str, float] | None], labels: Sequence[str]) -> dict[str, float] | None:
    """Mean of the normalised distributions, skipping None (members that failed).

    Returns None when no member produced a distribution.
    """
    normalised = [normalize(d, labels) for d in distributions if d is not None]
    if not normalised:
        return None
    return {label: sum(d[label] for d in normalised) / len(normalised) for label in labels}


def argmax(probs: Mapping[str, float], labels: Sequence[str]) -> str:
    """The most probable label; a tie goes to the label that comes first in class order.

    So a binary 0.5/0.5 tie predicts the first label (``"0"`` in the built-in specs), and an ordinal tie
    predicts the lower grade. Ties are exact-float ties, which happen with symmetric members.
    """
    best = labels[0]
    for label in labels[1:]:
        if probs[label] > probs[best]:
            best = label
    return best


def resolve_threshold(spec: TaskSpec, threshold: float | None) -> float:
    """``threshold`` itself, or the family default (0.5 binary, 0.2 ordinal)."""
    value = DEFAULT_THRESHOLD[spec.family] if threshold is None else float(threshold)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold must be within [0, 1], got {value}")
    return value


def disagrees(prediction: str, original: str | None, spec: TaskSpec, *, delta: int = DEFAULT_DELTA) -> bool:
    """Binary, nominal: prediction differs from the original. Ordinal: their class distance exceeds ``delta``.

    An unlabelled item (``original`` None) never disagrees.
    """
    if original is None:
        return False
    if spec.family in ("binary", "nominal"):
        return prediction != original
    return abs(spec.label_index(prediction) - spec.label_index(original)) > delta


def decide(
    probs: Mapping[str, float],
    original: str | None,
    spec: TaskSpec,
    *,
    threshold: float | None = None,
    delta: int = DEFAULT_DELTA,
) -> Decision:
    """Prediction (argmax, ties to the earlier class), confidence, and the suspected-error flag.

    Parameters
    ----------
    probs : mapping
        The averaged distribution over ``spec.labels`` (normalised again here, defensively).
    original : str or None
        The item's original label.
    threshold : float, optional
        Minimum confidence for a flag; None uses the family default (0.5 binary, 0.2 ordinal).
    delta : int
        Ordinal only: flag when ``|idx(prediction) - idx(original)| > delta`` (Nahum App. A.2: 1).
    """
    if delta < 0:
        raise ValueError(f"delta must be >= 0, got {delta}")
    normalised = normalize(probs, spec.labels)
    prediction = argmax(normalised, spec.labels)
    confidence = normalised[prediction]
    flagged = disagrees(prediction, original, spec, delta=delta) and confidence >= resolve_threshold(spec, threshold)
    return Decision(prediction=prediction, confidence=confidence, flagged=flagged)
