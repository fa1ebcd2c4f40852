"""Assemble the report from :class:`AuditData`: every section, in the order a lead reads them."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from .inputs import AuditData
from .model import Report, Section, Status
from .sections.audit import audit_section
from .sections.confidence import confidence_section
from .sections.crowd import crowd_section, stratified_section
from .sections.ensemble import ensemble_section
from .sections.errors import errors_section
from .sections.experts import experts_section
from .sections.models import models_section
from .sections.probes import probes_section


def build_report(data: AuditData, *, target_precision: float = 0.8, meta: Mapping[str, Any] | None = None,
                 seed: int = 0) -> Report:
    """Compute every section; a section that fails says so instead of taking the report down.

    Parameters
    ----------
    data : AuditData
        Ledger results, reviews, crowd labels, probes and optional model predictions.
    target_precision : float
        Share of flags that should be real errors; the report names the threshold that reaches it.
    seed : int
        Seeds the bootstrap and the ensemble-size subsets, so two runs print the same numbers.
    """
    if not 0.0 < target_precision <= 1.0:
        raise ValueError(f"target_precision must be in (0, 1], got {target_precision}")
    builders: list[tuple[str, str, Callable[[], Section]]] = [
        ("audit", "The audit", lambda: audit_section(data)),
        ("experts", "Expert agreement", lambda: experts_section(data)),
        ("errors", "Label errors", lambda: errors_section(data)),
        ("confidence", "Who is right, by ensemble confidence",
         lambda: confidence_section(data, target_precision=target_precision, seed=seed)),
        ("ensemble", "The ensemble", lambda: ensemble_section(data, seed=seed)),
        ("crowd", "Crowd annotations", lambda: crowd_section(data)),
        ("stratified", "Stratified by annotator certainty (p_d)", lambda: stratified_section(data)),
        ("models", "Models on original vs gold labels", lambda: models_section(data)),
        ("probes", "Gullibility probes", lambda: probes_section(data)),
    ]
    sections = [_safe(key, title, fn) for key, title, fn in builders]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    info = {"target_precision": target_precision, "labels": list(data.spec.labels), "family": data.spec.family,
            "task": data.spec.name, **dict(meta or {})}
    return Report(project=str(data.project), generated_at=now, sections=tuple(sections), meta=info)


def _safe(key: str, title: str, fn: Callable[[], Section]) -> Section:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one broken section must not hide the others
        return Section(key, title, Status.NOT_APPLICABLE,
                       reason=f"could not be computed: {type(exc).__name__}: {exc}")
