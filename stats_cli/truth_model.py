"""One model of the truth over annotators, judges, the confident-learning member and the experts' gold.

One home in :mod:`backend.review.truth_model`, shared with ``review push`` (which triages the suspects it
sends); the report reads it from here, as ``stats_cli`` reaches the backend only through ``backend.api``.
"""

from backend.api import SourceQuality, TruthModel

__all__ = ["TruthModel", "SourceQuality"]
