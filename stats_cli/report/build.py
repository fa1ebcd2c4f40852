"""Assemble the report from :class:`AuditData`: every registered section, in the order a lead reads them.

A project with several controls gets an overview of its controls, then every section once per control
(:mod:`stats_cli.report.controls`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Collection, Mapping

from stats_cli.sources.control_view import control_views

from .controls import controls_section, qualified
from .inputs import AuditData
from .model import Report, Section, Status
from .registry import BuildOptions, ReportSection, registered_sections


def build_report(data: AuditData, *, target_precision: float = 0.8, meta: Mapping[str, Any] | None = None,
                 seed: int = 0, prices: Any = None, only: Collection[str] | None = None) -> Report:
    """Compute every section; a section that fails says so instead of taking the report down.

    Parameters
    ----------
    data : AuditData
        Ledger results, reviews, crowd labels, probes and optional model predictions.
    target_precision : float
        Share of flags that should be real errors; the report names the threshold that reaches it.
    seed : int
        Seeds the bootstrap and the ensemble-size subsets, so two runs print the same numbers.
    only : collection of str, optional
        The keys of the sections to compute (None: every registered one). The simulation bench
        (``bench/simulate/``) builds only the sections whose figures it checks, to keep a replicate cheap.
    """
    if not 0.0 < target_precision <= 1.0:
        raise ValueError(f"target_precision must be in (0, 1], got {target_precision}")
    options = BuildOptions(target_precision=target_precision, seed=seed, prices=prices)
    views = control_views(data)
    chosen = [s for s in registered_sections() if only is None or s.key in only]
    if views:  # several controls: an overview, then every section once per control, on the control's own view
        sections = [controls_section(views)] + [qualified(_safe(section, view.data, options), view)
                                                for view in views for section in chosen]
    else:
        sections = [_safe(section, data, options) for section in chosen]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    info = {"target_precision": target_precision, "labels": list(data.spec.labels), "family": data.spec.family,
            "task": data.spec.name, **({"controls": [v.control.name for v in views]} if views else {}),
            **dict(meta or {})}
    return Report(project=str(data.project), generated_at=now, sections=tuple(sections), meta=info)


def _safe(section: type[ReportSection], data: AuditData, options: BuildOptions) -> Section:
    skipped = section.unmet(data)  # the section says what it needs, the family what it lacks
    if skipped:
        return section.not_applicable(skipped)
    try:
        return section.compute(data, options)
    except Exception as exc:  # noqa: BLE001 - one broken section must not hide the others
        return Section(section.key, section.title, Status.NOT_APPLICABLE,
                       reason=f"could not be computed: {type(exc).__name__}: {exc}")
