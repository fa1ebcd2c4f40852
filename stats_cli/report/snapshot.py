"""The report's first line while reviews are open: it is a snapshot, and how to refresh it.

A report written before the experts answer (the demo writes one at once) shows PENDING where gold labels
will come; without this line a reader would take it for the final word and never run it again.
"""

from __future__ import annotations

from .inputs import AuditData

DEFAULT_REFRESH = "run the same audit-stats report command again"


def snapshot_note(data: AuditData, *, refresh: str = DEFAULT_REFRESH) -> str | None:
    """Say how many routed items have no settled expert decision yet and how to refresh; None when none.

    ``refresh`` is how this reader regenerates the report (the demo names its own command).
    """
    if not refresh.strip():
        raise ValueError("refresh must say how to regenerate the report")
    settled = {str(item.id) for item, _ in data.reviewed()}
    open_items = sorted(set(data.routed) - settled)
    if not open_items:
        return None
    return (f"This report is a snapshot: {len(open_items)} of {len(data.routed)} items sent to the experts "
            f"had no settled decision when it was written, so the figures that need gold labels are PENDING "
            f"or rest on the settled ones only. Once the experts have answered, refresh it: {refresh}.")
