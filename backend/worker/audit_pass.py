"""The audit's project pass: what ``label-audit score`` decides over its whole run, decided over the audit's project.

The workers score a project batch by batch, each verdict read from every member as the judges answered. What
needs the project as a whole — the health gate, then the class-prior correction the settings name
(``LABEL_AUDIT_PRIOR_CORRECTION``) — is decided once the last batch is stored, over every stored result of the run,
by the very function ``score`` uses (:func:`backend.scoring.project_pass.project_pass`): both paths then give an
item the same verdict for the same answers, whichever correction becomes the default.

Memory: without a correction the gate is all there is to decide, from one tally folded page by page, so the
verdicts are re-read page by page as they are read back (a 100k-task audit stays flat). A correction divides each
judge's mean answer over the project out of every answer: it reads the whole project's answers at once, as
``score`` does, so the run's results are held in memory (as scored and as re-read). :meth:`AuditPass.store` then
writes the re-read verdicts into the ledger (:mod:`backend.ledger.reread`), so ``review push``, its triage and
control sample, ``/predict`` and the report read the verdicts Label Studio shows; the member rows keep the judges'
own answers, and every pass starts again from the verdicts as the workers scored them (a second audit re-reads
them, never an earlier pass's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from backend.ledger import Ledger
from backend.ledger.reread import iter_scored, record_pass, record_reread, same_verdict
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


def stored_results(ledger: Ledger, run: "AuditRun") -> Iterator[tuple[ItemResult, bool]]:
    """The run's stored results as the workers scored them, each with whether its row holds an earlier pass's
    verdict (the ledger's order, page by page)."""
    wanted = set(run.task_ids)
    return ((r, held) for r, held in iter_scored(ledger, run.project, run.model_version) if str(r.id) in wanted)


@dataclass(frozen=True)
class AuditPass:
    """The project pass decided over a run: the health it read, the gate it set, the summary's blocks.

    ``blocks`` holds ``health_gate`` and ``prior_correction`` as ``score``'s summary has them. ``corrected`` is the
    whole run re-read when a correction needed it at once, ``scored`` the same results as the workers scored them
    and ``held`` the ids whose rows hold an earlier pass's verdict (None: re-read page by page, :meth:`pairs`).
    """

    ledger: Ledger
    run: "AuditRun"
    rule: VerdictRule
    mode: str
    health: HealthTally
    gate: HealthGate
    blocks: dict[str, Any]
    corrected: tuple[ItemResult, ...] | None = field(default=None, repr=False)
    scored: tuple[ItemResult, ...] | None = field(default=None, repr=False)
    held: frozenset[str] = field(default=frozenset(), repr=False)

    def verdicts(self) -> Iterator[ItemResult]:
        """Every stored result of the run with its verdict re-read (gate, then correction), in the ledger's order."""
        return (reread for _, reread, _ in self.pairs())

    def pairs(self) -> Iterator[tuple[ItemResult, ItemResult, bool]]:
        """Each result as scored, as re-read, and whether its row holds an earlier pass's verdict."""
        if self.corrected is not None and self.scored is not None:
            yield from ((s, r, str(s.id) in self.held) for s, r in zip(self.scored, self.corrected))
            return
        page: list[tuple[ItemResult, bool]] = []
        for row in stored_results(self.ledger, self.run):
            page.append(row)
            if len(page) >= PAGE:
                yield from self._gated(page)
                page = []
        if page:
            yield from self._gated(page)

    def store(self) -> int:
        """Write the re-read verdicts that differ from the ledger's into it, and what the pass decided (its blocks:
        the report says what the verdicts rest on); return how many verdict rows were written."""
        record_pass(self.ledger, self.run.project, self.run.model_version, self.blocks)
        written, batch = 0, []
        for scored, reread, held in self.pairs():
            if held or not same_verdict(scored, reread):
                batch.append((scored, reread))
            if len(batch) >= PAGE:
                written += record_reread(self.ledger, self.run.project, self.run.model_version, batch)
                batch = []
        return written + record_reread(self.ledger, self.run.project, self.run.model_version, batch)

    def _gated(self, page: list[tuple[ItemResult, bool]]) -> list[tuple[ItemResult, ItemResult, bool]]:
        """One page through ``project_pass`` with the project's health: the gate it decides is the project's."""
        gated = project_pass([r for r, _ in page], self.rule, prior_correction=self.mode, health=self.health)[0]
        return [(r, g, held) for (r, held), g in zip(page, gated)]


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
        for res, _ in stored_results(ledger, run):
            health.add(res)
        blocks = project_pass([], rule, prior_correction=mode, health=health)[1]
        corrected = scored = None
        held: frozenset[str] = frozenset()
    else:
        rows = list(stored_results(ledger, run))
        scored = tuple(r for r, _ in rows)
        held = frozenset(str(r.id) for r, h in rows if h)
        for res in scored:
            health.add(res)
        final, blocks = project_pass(scored, rule, prior_correction=mode, health=health)
        corrected = tuple(final)
    return AuditPass(ledger=ledger, run=run, rule=rule, mode=mode, health=health,
                     gate=gate_from_health(health, family=spec.family), blocks=blocks, corrected=corrected,
                     scored=scored, held=held)
