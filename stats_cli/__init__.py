"""label-audit statistics: agreement, aggregation, error-rate bounds, stratification, and `audit-stats`."""

__version__ = "0.1.0"
