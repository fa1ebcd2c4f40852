"""``bounds`` lives in :mod:`backend.estimates.bounds` (the review push needs it too); this name points there.

One copy of the maths, below both layers; ``audit-stats`` reaches it through ``backend/api.py``.
"""

from __future__ import annotations

from backend.api import bounds as _owner

__all__ = ['ErrorRateBounds', 'clopper_pearson', 'fpc_factor', 'nahum_table2_interval', 'hypergeometric_interval', 'error_rate_bounds']

ErrorRateBounds = _owner.ErrorRateBounds
clopper_pearson = _owner.clopper_pearson
fpc_factor = _owner.fpc_factor
nahum_table2_interval = _owner.nahum_table2_interval
hypergeometric_interval = _owner.hypergeometric_interval
error_rate_bounds = _owner.error_rate_bounds
