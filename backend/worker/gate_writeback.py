"""When an audit is complete, the project pass's verdicts replace the predictions the workers imported.

The workers write each task's prediction to Label Studio as its batch is scored, read from every member: the
health gate and the prior correction cannot be decided there (they need the project's answers; decided batch by
batch, the first tasks would be judged by another ensemble than the last). So ``label-audit audit`` decides them
once, over every stored result of the project, after the last flush (:mod:`backend.worker.audit_pass`: the gate,
then ``LABEL_AUDIT_PRIOR_CORRECTION``, exactly as ``score``), writes the re-read verdicts into the ledger (the
review reads them there: :mod:`backend.ledger.reread`) and rewrites in Label Studio exactly the tasks whose re-read
prediction (label, flag marker, score) differs from the one Label Studio holds — the Data Manager's score column
and suspects tab then say what the summary says. Without a correction, a gate that leaves nobody out rewrites
nothing, unless an earlier audit's gate was written back: then the verdicts of every member come back the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backend.labelstudio.prediction_rewrite import same_prediction, stored_predictions, update_prediction
from backend.labelstudio.predictions import prediction_for
from backend.ledger import Ledger
from backend.scoring.health_gate import HealthGate
from backend.worker.audit_pass import AuditPass, audit_pass
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.project_audit import AuditRun, summary_from_ledger

__all__ = ["GateWriteBack", "gated_summary", "write_back_gated"]

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


def write_back_gated(client: Any, ledger: Ledger, run: AuditRun, config: EnsembleConfig, *, quorum: Any = None,
                     passed: AuditPass | None = None) -> GateWriteBack:
    """Rewrite in Label Studio the predictions whose re-read verdict differs from the stored one; say how many.

    ``passed`` is the project pass already decided over these results (else it is decided here, with ``config``'s
    prior correction); ``quorum`` the workers'.
    """
    spec = config.spec(run.label_config)
    if passed is None:
        passed = audit_pass(ledger, run, config, quorum=quorum)
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

    for res in passed.verdicts():
        wanted = prediction_for(res, spec, run.model_version, ls_version=name)
        if wanted is None or not str(res.id).isdigit():
            continue
        page[str(res.id)] = wanted
        if len(page) >= PAGE:
            settle()
    if page:
        settle()
    return GateWriteBack(gate=passed.gate, checked=checked, rewritten=rewritten, missing=missing)


def gated_summary(client: Any, ledger: Ledger, run: AuditRun, config: EnsembleConfig, *, quorum: Any = None,
                  prices: Any = None) -> dict[str, Any]:
    """The audit's last leg, after its last flush: the project pass decided once, written back (into the ledger, then
    into Label Studio), then the summary.

    The ledger is written first and with or without ``client``: ``review push`` reads it. The summary's
    ``health_gate.predictions`` says how many predictions the pass rewrote (``client`` None: the write-back is
    skipped and the summary says nothing about Label Studio); its ``prior_correction`` block is ``score``'s.
    """
    passed = audit_pass(ledger, run, config, quorum=quorum)
    passed.store()
    written = None if client is None else write_back_gated(client, ledger, run, config, quorum=quorum, passed=passed)
    summary = summary_from_ledger(ledger, run, config, prices=prices, quorum=quorum, passed=passed)
    if written is not None:
        summary["health_gate"]["predictions"] = written.to_dict()
    return summary
