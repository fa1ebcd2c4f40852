"""The audit ledger: durable SQL record of scores, crowd labels and jobs (see ``store.Ledger``)."""

from backend.ledger.jobs import JobLog, JobRecord
from backend.ledger import schema
from backend.ledger.store import CrowdLabel, Ledger

__all__ = ["CrowdLabel", "JobLog", "JobRecord", "Ledger", "schema"]
