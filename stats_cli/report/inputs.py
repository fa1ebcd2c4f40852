"""The report's inputs live in :mod:`stats_cli.sources.audit_data` (shared with `sync-gold`); re-exported here."""

from stats_cli.sources.audit_data import AuditData, ExpertReview, ProbeRow

__all__ = ["AuditData", "ExpertReview", "ProbeRow"]
