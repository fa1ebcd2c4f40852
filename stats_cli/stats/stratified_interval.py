"""``stratified_interval`` lives in :mod:`backend.estimates.stratified_interval` (the review push needs it too); this name points there.

One copy of the maths, below both layers; ``audit-stats`` reaches it through ``backend/api.py``.
"""

from __future__ import annotations

from backend.api import stratified_interval as _owner

__all__ = ['GAMMA', 'GAMMA_POISSON', 'KORN_GRAUBARD', 'MOVER', 'METHODS', 'stratified_interval']

GAMMA = _owner.GAMMA
GAMMA_POISSON = _owner.GAMMA_POISSON
KORN_GRAUBARD = _owner.KORN_GRAUBARD
MOVER = _owner.MOVER
METHODS = _owner.METHODS
stratified_interval = _owner.stratified_interval
