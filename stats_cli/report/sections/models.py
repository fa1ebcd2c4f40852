"""Models under evaluation on original vs gold labels (Nahum Table 4)."""

from __future__ import annotations

from ..inputs import AuditData
from ..model import Section, not_applicable

KEY, TITLE = "models", "Models on original vs gold labels"


def models_section(data: AuditData) -> Section:
    return not_applicable(KEY, TITLE, "no --models file given")
