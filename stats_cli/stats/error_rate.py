"""``error_rate`` lives in :mod:`backend.estimates.error_rate` (the review push needs it too); this name points there.

One copy of the maths, below both layers; ``audit-stats`` reaches it through ``backend/api.py``.
"""

from __future__ import annotations

from backend.api import error_rate as _owner

__all__ = ['METHOD', 'StratumCount', 'StratumEstimate', 'RateEstimate', 'estimate_rate', 'parse_stratum']

METHOD = _owner.METHOD
StratumCount = _owner.StratumCount
StratumEstimate = _owner.StratumEstimate
RateEstimate = _owner.RateEstimate
estimate_rate = _owner.estimate_rate
parse_stratum = _owner.parse_stratum
