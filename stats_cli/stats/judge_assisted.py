"""``judge_assisted`` lives in :mod:`backend.estimates.judge_assisted` (the review push needs it too); this name points there.

One copy of the maths, below both layers; ``audit-stats`` reaches it through ``backend/api.py``.
"""

from __future__ import annotations

from backend.api import judge_assisted as _owner

__all__ = ['MIN_ERRORS', 'METHOD', 'TARGETS', 'StratumSample', 'Estimate', 'JudgeAssisted', 'judge_assisted_rate', 'reviews_for']

MIN_ERRORS = _owner.MIN_ERRORS
METHOD = _owner.METHOD
TARGETS = _owner.TARGETS
StratumSample = _owner.StratumSample
Estimate = _owner.Estimate
JudgeAssisted = _owner.JudgeAssisted
judge_assisted_rate = _owner.judge_assisted_rate
reviews_for = _owner.reviews_for
