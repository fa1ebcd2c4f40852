"""Who is right when the ensemble disagrees, by confidence bin (Nahum Fig. 2) — wired to H3's bins."""

from __future__ import annotations

from ..inputs import AuditData
from ..model import Section, pending

KEY, TITLE = "confidence", "Who is right, by ensemble confidence"


def confidence_section(data: AuditData, *, target_precision: float = 0.8, seed: int = 0) -> Section:
    return pending(KEY, TITLE, "not wired yet")
