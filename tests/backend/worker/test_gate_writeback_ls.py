"""Through a real Label Studio 1.23.2: after the audit's last leg, each task's prediction is the gated verdict.

The predictions are imported as the workers' outbox imports them (one bulk call, each verdict read from every
member, one of them COLLAPSED); the ledger is a real SQLite file. After :func:`write_back_gated` the tasks read
back from Label Studio hold one prediction of the run each, with the healthy member's verdict (label, score, no
suspect marker), and the tasks the gate does not change keep their prediction untouched (same id, same result).
"""

from __future__ import annotations

from backend.config.settings import Settings
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.modelname import same_version
from backend.labelstudio.predictions import import_predictions, prediction_requests
from backend.labelstudio.taskshape import field
from backend.ledger import Ledger
from backend.scoring.ensemble import VerdictRule, verdict
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.gate_writeback import write_back_gated
from backend.worker.project_audit import AuditRun
from tests.backend.worker.test_gate_writeback import CONFIG, STUCK, stored_result


def _ours(client, project: int, key: str) -> dict[str, list]:
    """Each task's predictions of the run, as plain dicts (id, result, score)."""
    out = {}
    for task in iter_tasks(client, project, with_annotations=True):
        preds = [p for p in field(task, "predictions", None) or [] if same_version(field(p, "model_version"), key)]
        out[str(field(task, "id"))] = [{"id": field(p, "id"), "score": field(p, "score"),
                                        "result": [dict(r) if isinstance(r, dict) else r.model_dump()
                                                   for r in field(p, "result")]} for p in preds]
    return out


def test_after_the_audit_each_task_holds_the_gated_prediction(label_studio, tmp_path):
    config = EnsembleConfig.from_settings(Settings.from_env({"LABEL_AUDIT_PRIOR_CORRECTION": "none"}))  # the gate
    spec = config.spec(CONFIG)
    rule = VerdictRule(spec)
    key = config.model_version(spec)
    project, ids = label_studio.create_project(CONFIG, [{"data": {"text": f"message {i}"}} for i in range(30)])
    stored = [stored_result(i, rule, tid) for i, tid in enumerate(ids)]
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    for batch in (stored[:10], stored[10:20], stored[20:]):
        ledger.record_many(str(project), key, batch)
    import_predictions(label_studio.client, str(project),
                       prediction_requests(stored, spec, key, ls_version=config.ls_version(spec)))
    before = _ours(label_studio.client, project, key)
    run = AuditRun(project=str(project), model_version=key, task_ids=[r.id for r in stored], jobs=[],
                   label_config=CONFIG)

    written = write_back_gated(label_studio.client, ledger, run, config)

    assert list(written.gate.left_out) == [STUCK]
    assert (written.checked, written.rewritten, written.missing) == (30, 20, 0)
    after = _ours(label_studio.client, project, key)
    for r in stored:
        alone = verdict([r.members[1].probs], ["local:smollm2"], r.original, rule)
        [held] = after[r.id]
        assert held["id"] == before[r.id][0]["id"]  # updated in place: no second prediction of the run
        assert held["result"][0]["value"]["choices"] == [alone.prediction]
        assert abs(held["score"] - alone.confidence) < 1e-9
        assert "suspect" not in str(held["result"][0].get("id") or "")
        if r.original == "spam":  # the gate changes nothing here: the stored prediction is the one imported
            assert held == before[r.id][0]
        else:
            assert held != before[r.id][0]
    assert write_back_gated(label_studio.client, ledger, run, config).rewritten == 0
