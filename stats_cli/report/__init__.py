"""`audit-stats report`: the audit's answer as a typed report, pulled from Label Studio and the ledger.

Public API: :func:`pull_audit` (SDK + ledger + review and probe stores -> :class:`AuditData`),
:func:`build_report` (-> :class:`Report`), :func:`render` (table | json | md | html).
"""

from stats_cli.report.build import build_report
from stats_cli.report.inputs import AuditData, ExpertReview, ProbeRow
from stats_cli.report.model import Figure, Report, Section, Series, Status, Table
from stats_cli.sources.audit_pull import PullStats, pull_audit
from stats_cli.report.render import FORMATS, render

__all__ = ["AuditData", "ExpertReview", "FORMATS", "Figure", "ProbeRow", "PullStats", "Report", "Section",
           "Series", "Status", "Table", "build_report", "pull_audit", "render"]
