"""When an audit is complete, the health gate's verdicts replace the predictions the workers imported.

The workers write each task's prediction to Label Studio as its batch is scored, read from every member: the
gate cannot be decided there (it needs the project's answers; decided batch by batch, the first tasks would be
judged by another ensemble than the last). So ``label-audit audit`` decides it once, over every stored result of
the project, after the last flush, and rewrites exactly the tasks whose gated prediction (label, flag marker,
score) differs from the one Label Studio holds — the Data Manager's score column and suspects tab then leave a
COLLAPSED member x prompt out as the summary does. A gate that leaves nobody out rewrites nothing, unless an
earlier audit's gate was written back: then the verdicts of every member come back the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from backend.labelstudio.prediction_rewrite import same_prediction, stored_predictions, update_prediction
from backend.labelstudio.predictions import prediction_for
from backend.ledger import Ledger
from backend.scoring.ensemble import VerdictRule
from backend.scoring.health_gate import HealthGate, gate_from_health, regate
from backend.scoring.member_health import HealthTally
from backend.scoring.results import ItemResult
from backend.task.spec import TaskSpec
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.project_audit import AuditRun, summary_from_ledger

__all__ = ["GateWriteBack", "gated_summary", "project_gate", "write_back_gated"]

PAGE = 500  # tasks compared per Label Studio listing (their ids travel in the listing's query)


@dataclass(frozen=True)
class GateWriteBack:
    """What the write-back did: the gate, the tasks compared, those rewritten, and those with no stored prediction."""

    gate: HealthGate
    checked: int
    rewritten: int
    missing: int

    def to_dict(self) -> dict[str, int]:
        return {"checked": self.checked, "rewritten": self.rewritten, "missing": self.missing}


def _results(ledger: Ledger, run: AuditRun) -> Iterator[ItemResult]:
    wanted = set(run.task_ids)
    return (r for r in ledger.iter_results(run.project, run.model_version) if str(r.id) in wanted)


def project_gate(ledger: Ledger, run: AuditRun, spec: TaskSpec) -> tuple[HealthTally, HealthGate]:
    """Member health over the run's stored results (one pass, page by page), and the gate it sets."""
    health = HealthTally()
    for res in _results(ledger, run):
        health.add(res)
    return health, gate_from_health(health, family=spec.family)


def write_back_gated(client: Any, ledger: Ledger, run: AuditRun, config: EnsembleConfig, *, quorum: Any = None,
                     gate: HealthGate | None = None) -> GateWriteBack:
    """Rewrite in Label Studio the predictions whose gated verdict differs from the stored one; say how many.

    ``gate`` is the one already decided over these results (else it is decided here); ``quorum`` the workers'.
    """
    spec = config.spec(run.label_config)
    if gate is None:
        gate = project_gate(ledger, run, spec)[1]
    rule = VerdictRule(spec, threshold=config.threshold, delta=config.delta,
                       quorum=quorum if quorum is not None else VerdictRule(spec).quorum)
    name = config.ls_version(spec)
    checked = rewritten = missing = 0
    page: dict[str, dict[str, Any]] = {}

    def settle() -> None:
        nonlocal checked, rewritten, missing
        stored = stored_predictions(client, run.project, list(page), run.model_version)
        for tid, wanted in page.items():
            checked += 1
            held = stored.get(tid)
            if held is None:
                missing += 1
            elif not same_prediction(held, wanted):
                update_prediction(client, held.id, wanted)
                rewritten += 1
        page.clear()

    for res in _results(ledger, run):
        wanted = prediction_for(regate(res, gate, rule), spec, run.model_version, ls_version=name)
        if wanted is None or not str(res.id).isdigit():
            continue
        page[str(res.id)] = wanted
        if len(page) >= PAGE:
            settle()
    if page:
        settle()
    return GateWriteBack(gate=gate, checked=checked, rewritten=rewritten, missing=missing)


def gated_summary(client: Any, ledger: Ledger, run: AuditRun, config: EnsembleConfig, *, quorum: Any = None,
                  prices: Any = None) -> dict[str, Any]:
    """The audit's last leg, after its last flush: the gate decided once, written back, then the summary.

    The summary's ``health_gate.predictions`` says how many predictions the gate rewrote (``client`` None: the
    write-back is skipped and the summary says nothing about Label Studio).
    """
    spec = config.spec(run.label_config)
    health, gate = project_gate(ledger, run, spec)
    written = None if client is None else write_back_gated(client, ledger, run, config, quorum=quorum, gate=gate)
    summary = summary_from_ledger(ledger, run, config, prices=prices, quorum=quorum, gated=(health, gate))
    if written is not None:
        summary["health_gate"]["predictions"] = written.to_dict()
    return summary
