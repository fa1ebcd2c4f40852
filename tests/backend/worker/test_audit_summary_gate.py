"""The audit's summary, rebuilt from the ledger, applies the health gate over the project's stored results.

A real SQLite ledger holds results as workers store them, batch by batch, each verdict read from every member; one
member answers "spam" whatever the item. The summary must name it with the reason and count the flags of the
verdicts re-read without it (recomputed here with the ensemble's own rule, never hard-coded).
"""

from __future__ import annotations

from backend.config.settings import Settings
from backend.ledger import Ledger
from backend.scoring.ensemble import VerdictRule, verdict
from backend.scoring.results import ItemResult, MemberResult
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.project_audit import AuditRun, summary_from_ledger

CONFIG = ('<View><Text name="t" value="$text"/><Choices name="c" toName="t"><Choice value="spam"/>'
          '<Choice value="ham"/><Choice value="other"/></Choices></View>')
LABELS = ("spam", "ham", "other")
STUCK, GOOD = "local:smollm2/generic-question@v1", "local:smollm2/generic-annotator@v1"


def _result(i: int, rule: VerdictRule) -> ItemResult:
    original = LABELS[i % 3]
    good = {lab: (0.6 if lab == original else 0.2) for lab in LABELS}
    stuck = {lab: (0.98 if lab == "spam" else 0.01) for lab in LABELS}
    members = (MemberResult(STUCK, probs=stuck, raw_mass=0.9), MemberResult(GOOD, probs=good, raw_mass=0.9))
    d = verdict([stuck, good], ["local:smollm2"] * 2, original, rule)
    return ItemResult(id=str(i), original=original, prediction=d.prediction, confidence=d.confidence, probs=d.probs,
                      flagged=d.flagged, members=members)


def test_the_audit_summary_leaves_out_a_collapsed_member_over_the_whole_project(tmp_path):
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    config = EnsembleConfig.from_settings(Settings.from_env({}))
    spec = config.spec(CONFIG)
    rule = VerdictRule(spec)
    stored = [_result(i, rule) for i in range(30)]
    for batch in (stored[:10], stored[10:20], stored[20:]):  # as three worker batches stored them
        ledger.record_many("7", "v1", batch)
    run = AuditRun(project="7", model_version="v1", task_ids=[r.id for r in stored], jobs=[], label_config=CONFIG)
    summary = summary_from_ledger(ledger, run, config)
    assert [x["member"] for x in summary["health_gate"]["left_out"]] == [STUCK]
    assert "COLLAPSED" in summary["health_gate"]["left_out"][0]["reason"]
    assert sum(r.flagged for r in stored) > 0  # the stored verdicts carry the stuck member's flags
    regated = [verdict([r.members[1].probs], ["local:smollm2"], r.original, rule) for r in stored]
    assert summary["flagged"] == sum(d.flagged for d in regated) == 0
