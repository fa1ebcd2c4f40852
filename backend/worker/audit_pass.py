"""The audit's project pass: what ``label-audit score`` decides over its whole run, decided over the audit's project.

The workers score a project batch by batch, each verdict read from every member as the judges answered. What
needs the project as a whole — the health gate, then the class-prior correction the settings name
(``LABEL_AUDIT_PRIOR_CORRECTION``) — is decided once the last batch is stored, over every stored result of the run,
by the very function ``score`` uses (:func:`backend.scoring.project_pass.project_pass`): both paths then give an
item the same verdict for the same answers, whichever correction becomes the default.

Memory: without a correction the gate is all there is to decide, from one tally folded page by page, so the
verdicts are re-read page by page as they are read back (a 100k-task audit stays flat). A correction divides each
judge's mean answer over the project out of every answer: it reads the whole project's answers at once, as
``score`` does, so the run's results are held once in memory. Nothing is written to the ledger: its member rows
keep the judges' own answers; only the verdicts read from them change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from backend.ledger import Ledger
from backend.scoring.ensemble import VerdictRule
from backend.scoring.health_gate import HealthGate, gate_from_health
from backend.scoring.member_health import HealthTally
from backend.scoring.project_pass import corrects, project_pass
from backend.scoring.results import ItemResult
from backend.worker.ensemble_config import EnsembleConfig

if TYPE_CHECKING:
    from backend.worker.project_audit import AuditRun

__all__ = ["AuditPass", "audit_pass", "stored_results"]

PAGE = 2000  # results re-read together when no correction needs the whole project (the ledger's own page)


def stored_results(ledger: Ledger, run: "AuditRun") -> Iterator[ItemResult]:
    """The run's stored results as the workers wrote them (the ledger's order, page by page)."""
    wanted = set(run.task_ids)
    return (r for r in ledger.iter_results(run.project, run.model_version) if str(r.id) in wanted)


@dataclass(frozen=True)
class AuditPass:
    """The project pass decided over a run: the health it read, the gate it set, the summary's blocks.

    ``blocks`` holds ``health_gate`` and ``prior_correction`` as ``score``'s summary has them. ``corrected`` is the
    whole run re-read when a correction needed it at once (None: re-read page by page, :meth:`verdicts`).
    """

    ledger: Ledger
    run: "AuditRun"
    rule: VerdictRule
    mode: str
    health: HealthTally
    gate: HealthGate
    blocks: dict[str, Any]
    corrected: tuple[ItemResult, ...] | None = field(default=None, repr=False)

    def verdicts(self) -> Iterator[ItemResult]:
        """Every stored result of the run with its verdict re-read (gate, then correction), in the ledger's order."""
        if self.corrected is not None:
            yield from self.corrected
            return
        page: list[ItemResult] = []
        for res in stored_results(self.ledger, self.run):
            page.append(res)
            if len(page) >= PAGE:
                yield from self._gated(page)
                page = []
        if page:
            yield from self._gated(page)

    def _gated(self, page: list[ItemResult]) -> list[ItemResult]:
        """One page through ``project_pass`` with the project's health: the gate it decides is the project's."""
        return project_pass(page, self.rule, prior_correction=self.mode, health=self.health)[0]


def audit_pass(ledger: Ledger, run: "AuditRun", config: EnsembleConfig, *, quorum: Any = None) -> AuditPass:
    """Decide the project pass over the run's stored results with ``config``'s prior correction.

    ``quorum`` is the workers' (:meth:`backend.config.settings.Settings.quorum`; None: the spec's default), so the
    verdicts are read by the rule they were scored with.
    """
    spec = config.spec(run.label_config)
    rule = VerdictRule(spec, threshold=config.threshold, delta=config.delta,
                       quorum=quorum if quorum is not None else VerdictRule(spec).quorum)
    mode = config.prior_correction
    health = HealthTally()
    if not corrects(mode, spec.family):  # nothing re-read over the whole project: page by page
        for res in stored_results(ledger, run):
            health.add(res)
        blocks = project_pass([], rule, prior_correction=mode, health=health)[1]
        corrected = None
    else:
        results = list(stored_results(ledger, run))
        for res in results:
            health.add(res)
        final, blocks = project_pass(results, rule, prior_correction=mode, health=health)
        corrected = tuple(final)
    return AuditPass(ledger=ledger, run=run, rule=rule, mode=mode, health=health,
                     gate=gate_from_health(health, family=spec.family), blocks=blocks, corrected=corrected)
