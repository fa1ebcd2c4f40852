"""When an audit is complete, the project pass's verdicts replace in Label Studio exactly the predictions they change.

A real SQLite ledger holds results as workers store them, batch by batch, each verdict read from every member; one
member answers "spam" whatever the item (COLLAPSED over the project). The predictions Label Studio holds are the
ones the workers' outbox imported (built here by the same function). On the tasks whose original is "spam" the
other member answers exactly as the stuck one, so their gated verdict is the stored one: those must not be touched.
Every other task's prediction must become the verdict of the healthy member alone (recomputed with the ensemble's
own rule, never hard-coded). The Label Studio SDK is replaced by a recorder of the two calls the write-back makes.
With ``LABEL_AUDIT_PRIOR_CORRECTION`` set, the verdicts written are those ``score``'s project pass gives (the gate,
then the correction), recomputed here with :func:`backend.scoring.project_pass.project_pass` itself.
"""

from __future__ import annotations

import copy
import json

from backend.config.settings import Settings
from backend.labelstudio.predictions import prediction_requests
from backend.ledger import Ledger
from backend.ledger.reread import pass_blocks
from backend.scoring.ensemble import VerdictRule, verdict
from backend.scoring.results import ItemResult, MemberResult
from backend.summaries.score_summary import adjustment_lines
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.gate_writeback import gated_summary, write_back_gated
from backend.worker.project_audit import AuditRun

CONFIG = ('<View><Text name="t" value="$text"/><Choices name="c" toName="t"><Choice value="spam"/>'
          '<Choice value="ham"/><Choice value="other"/></Choices></View>')
LABELS = ("spam", "ham", "other")
STUCK, GOOD = "local:smollm2/generic-question@v1", "local:smollm2/generic-annotator@v1"
STUCK_PROBS = {lab: (0.98 if lab == "spam" else 0.01) for lab in LABELS}


def _good(original: str) -> dict[str, float]:
    if original == "spam":  # answers as the stuck member: the gate changes nothing on these tasks
        return dict(STUCK_PROBS)
    return {lab: (0.6 if lab == original else 0.2) for lab in LABELS}


def stored_result(i: int, rule: VerdictRule, task_id: int) -> ItemResult:
    """Item ``i`` as a worker stored it: its verdict read from both members (task ``task_id``)."""
    original = LABELS[i % 3]
    good = _good(original)
    members = (MemberResult(STUCK, probs=STUCK_PROBS, raw_mass=0.9), MemberResult(GOOD, probs=good, raw_mass=0.9))
    d = verdict([STUCK_PROBS, good], ["local:smollm2"] * 2, original, rule)
    return ItemResult(id=str(task_id), original=original, prediction=d.prediction, confidence=d.confidence,
                      probs=d.probs, flagged=d.flagged, members=members)


class _Tasks:
    def __init__(self, store: dict[int, list[dict]]) -> None:
        self.store = store

    def list(self, *, project, page_size, fields=None, query=None):
        ids = json.loads(query)["selectedItems"]["included"] if query else sorted(self.store)
        return [{"id": t, "predictions": copy.deepcopy(self.store[t])} for t in ids if t in self.store]


class _Predictions:
    def __init__(self, store: dict[int, list[dict]]) -> None:
        self.store, self.updated = store, []

    def update(self, *, id, result, score):
        self.updated.append(id)
        for preds in self.store.values():
            for p in preds:
                if p["id"] == id:
                    p.update(result=copy.deepcopy(result), score=score)


class FakeLabelStudio:
    """Predictions by task, as the listing gives them; ``predictions.update`` records and applies each PATCH."""

    def __init__(self, requests: list[dict], *, other_version: str) -> None:
        self.store: dict[int, list[dict]] = {}
        for n, req in enumerate(requests):
            other = {"id": 5000 + n, "model_version": other_version, "result": [], "score": 0.5}
            ours = {"id": 1 + n, "model_version": req["model_version"], "result": req["result"], "score": req["score"]}
            self.store[req["task"]] = [other, ours]
        self.tasks, self.predictions = _Tasks(self.store), _Predictions(self.store)

    def ours(self, task: int) -> dict:
        return next(p for p in self.store[task] if p["id"] < 5000)


def _project(tmp_path):
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    # the gate alone, named (the corrections are tested with the lean project below)
    config = EnsembleConfig.from_settings(Settings.from_env({"LABEL_AUDIT_PRIOR_CORRECTION": "none"}))
    spec = config.spec(CONFIG)
    rule = VerdictRule(spec)
    stored = [stored_result(i, rule, 100 + i) for i in range(30)]
    key = config.model_version(spec)
    for batch in (stored[:10], stored[10:20], stored[20:]):  # as three worker batches stored them
        ledger.record_many("7", key, batch)
    client = FakeLabelStudio(prediction_requests(stored, spec, key, ls_version=config.ls_version(spec)),
                             other_version="label-audit-000000000000")
    run = AuditRun(project="7", model_version=key, task_ids=[r.id for r in stored], jobs=[], label_config=CONFIG)
    return ledger, config, spec, rule, stored, client, run


def test_the_gated_verdicts_replace_exactly_the_predictions_they_change(tmp_path):
    ledger, config, spec, rule, stored, client, run = _project(tmp_path)
    written = write_back_gated(client, ledger, run, config)
    assert list(written.gate.left_out) == [STUCK]
    changed = [int(r.id) for r in stored if r.original != "spam"]
    assert sorted(client.predictions.updated) == sorted(client.ours(t)["id"] for t in changed)
    assert (written.checked, written.rewritten, written.missing) == (30, 20, 0)
    for r in stored:
        alone = verdict([r.members[1].probs], ["local:smollm2"], r.original, rule)
        held = client.ours(int(r.id))
        assert held["result"][0]["value"]["choices"] == [alone.prediction]
        assert held["score"] == alone.confidence
        assert ("suspect" in held["result"][0].get("id", "")) == bool(alone.flagged)
        assert client.store[int(r.id)][0] == {"id": 5000 + stored.index(r), "model_version": "label-audit-000000000000",
                                              "result": [], "score": 0.5}  # another version's prediction stays
    assert sum(r.flagged for r in stored) > 0 and sum(
        verdict([r.members[1].probs], ["local:smollm2"], r.original, rule).flagged for r in stored) == 0
    again = write_back_gated(client, ledger, run, config)  # a second audit finds them written: no call
    assert again.rewritten == 0 and len(client.predictions.updated) == 20


def test_the_audit_summary_counts_the_rewritten_predictions(tmp_path):
    ledger, config, spec, rule, stored, client, run = _project(tmp_path)
    summary = gated_summary(client, ledger, run, config)
    assert summary["health_gate"]["predictions"] == {"checked": 30, "rewritten": 20, "missing": 0}
    assert summary["flagged"] == 0
    assert "Predictions the health gate rewrote in Label Studio: 20 of 30." in adjustment_lines(summary)


def test_the_ledger_holds_the_gated_verdicts_for_the_review_and_a_later_gate_starts_from_the_scored_ones(tmp_path):
    """``review push`` reads ``ledger.flagged``: after the audit it must read the verdicts Label Studio shows. A
    second audit whose gate leaves nobody out (the stuck judge was re-scored on most tasks and answers well there)
    must give back the workers' own verdicts on the tasks it did not re-score, not keep the first gate's."""
    ledger, config, spec, rule, stored, client, run = _project(tmp_path)
    gated_summary(client, ledger, run, config)
    alone = {r.id: verdict([r.members[1].probs], ["local:smollm2"], r.original, rule) for r in stored}
    held = {r.id: r for r in ledger.iter_results("7", run.model_version)}
    assert {i: (r.prediction, r.confidence, r.flagged) for i, r in held.items()} == {
        i: (d.prediction, d.confidence, d.flagged) for i, d in alone.items()}
    assert [[m.probs for m in r.members] for r in held.values()] == [[m.probs for m in r.members] for r in stored]
    assert sum(r.flagged for r in stored) > 0 and ledger.flagged("7", model_version=run.model_version) == []
    assert _held(client, stored) == _wanted(list(held.values()), spec, config, run.model_version)

    # the stuck judge re-scored on 20 tasks (answering each one's label): it answers "spam" on 20 of 30, not collapsed
    rescored = [r for r in stored if r.original == "spam"] + [r for r in stored if r.original != "spam"][:10]
    healthy = []
    for r in rescored:
        own = {lab: (0.98 if lab == r.original else 0.01) for lab in LABELS}
        d = verdict([own, r.members[1].probs], ["local:smollm2"] * 2, r.original, rule)
        healthy.append(ItemResult(id=r.id, original=r.original, prediction=d.prediction, confidence=d.confidence,
                                  probs=d.probs, flagged=d.flagged,
                                  members=(MemberResult(STUCK, probs=own, raw_mass=0.9), r.members[1])))
    ledger.record_many("7", run.model_version, healthy)
    summary = gated_summary(client, ledger, run, config)
    assert summary["health_gate"]["left_out"] == []
    expected = {r.id: r for r in stored} | {r.id: r for r in healthy}  # every verdict as the workers scored it
    again = {r.id: r for r in ledger.iter_results("7", run.model_version)}
    assert {i: (r.prediction, r.confidence, r.flagged) for i, r in again.items()} == {
        i: (r.prediction, r.confidence, r.flagged) for i, r in expected.items()}
    untouched = [r for r in stored if r.id not in {h.id for h in healthy}]
    assert len(untouched) == 10 and all(again[r.id] == r for r in untouched)  # the row is the workers' again
    assert [r.id for r in ledger.flagged("7", model_version=run.model_version)] == sorted(
        (r.id for r in expected.values() if r.flagged), key=lambda i: (-expected[i].confidence, int(i)))
    assert summary["flagged"] == sum(r.flagged for r in expected.values()) > 0


def test_a_stored_score_edited_into_something_else_is_read_as_none_and_rewritten():
    """A prediction's score changed by hand in Label Studio (text, NaN, missing) never stops the audit's last leg."""
    from backend.labelstudio.prediction_rewrite import StoredPrediction, same_prediction, stored_score

    assert [stored_score(v) for v in ("0.75", 0.75, None, "high", float("nan"), [1])] == [0.75, 0.75, None, None,
                                                                                          None, None]
    held = StoredPrediction(id=1, task="1", result=[], score=stored_score("high"))
    assert not same_prediction(held, {"result": [], "score": 0.75})


# -- the prior correction: the audit's project pass is `score`'s (gate, then LABEL_AUDIT_PRIOR_CORRECTION) --------

#: 20 of the 30 tasks are labelled "spam": the project's labels are mostly that class.
LEAN_ORIGINALS = ("spam",) * 20 + ("ham",) * 5 + ("other",) * 5
STUCK_OTHER = {"spam": 0.01, "ham": 0.01, "other": 0.98}  # "other" whatever the item: COLLAPSED, gated out


def _lean(i: int, original: str) -> dict[str, float]:
    """A judge that under-answers "spam": half the spam tasks it calls "ham" (a flag without the correction)."""
    if original == "spam":
        return {"spam": 0.7, "ham": 0.2, "other": 0.1} if i % 2 else {"spam": 0.3, "ham": 0.55, "other": 0.15}
    return {"spam": 0.1, "ham": 0.8, "other": 0.1} if original == "ham" else {"spam": 0.1, "ham": 0.2, "other": 0.7}


def _lean_project(tmp_path, mode: str):
    """The lean project stored by three worker batches under ``mode``'s model version, imported into the double."""
    ledger = Ledger(f"sqlite:///{tmp_path / f'ledger-{mode}.sqlite'}")
    config = EnsembleConfig(Settings.from_env({}), prior_correction=mode)
    spec = config.spec(CONFIG)
    rule = VerdictRule(spec)
    stored = []
    for i, original in enumerate(LEAN_ORIGINALS):
        lean = _lean(i, original)
        d = verdict([STUCK_OTHER, lean], ["local:smollm2"] * 2, original, rule)
        stored.append(ItemResult(id=str(100 + i), original=original, prediction=d.prediction, confidence=d.confidence,
                                 probs=d.probs, flagged=d.flagged,
                                 members=(MemberResult(STUCK, probs=STUCK_OTHER, raw_mass=0.9),
                                          MemberResult(GOOD, probs=lean, raw_mass=0.9))))
    key = config.model_version(spec)
    for batch in (stored[:10], stored[10:20], stored[20:]):
        ledger.record_many("7", key, batch)
    client = FakeLabelStudio(prediction_requests(stored, spec, key, ls_version=config.ls_version(spec)),
                             other_version="label-audit-000000000000")
    run = AuditRun(project="7", model_version=key, task_ids=[r.id for r in stored], jobs=[], label_config=CONFIG)
    return ledger, config, spec, rule, stored, client, run


def _held(client: FakeLabelStudio, stored: list[ItemResult]) -> dict[str, tuple]:
    """What Label Studio holds per task: (label, score, flag marker)."""
    out = {}
    for r in stored:
        held = client.ours(int(r.id))
        out[r.id] = (held["result"][0]["value"]["choices"], held["score"], "suspect" in held["result"][0].get("id", ""))
    return out


def _wanted(results: list[ItemResult], spec, config: EnsembleConfig, key: str) -> dict[str, tuple]:
    """The same triple for ``results`` as the outbox would write them."""
    out = {}
    for req in prediction_requests(results, spec, key, ls_version=config.ls_version(spec)):
        out[str(req["task"])] = (req["result"][0]["value"]["choices"], req["score"],
                                 "suspect" in req["result"][0].get("id", ""))
    return out


def test_a_given_correction_rewrites_the_verdicts_score_would_give(tmp_path):
    from backend.scoring.project_pass import project_pass

    ledger, config, spec, rule, stored, client, run = _lean_project(tmp_path, "given")
    summary = gated_summary(client, ledger, run, config)

    expected, blocks = project_pass(stored, rule, prior_correction="given")
    gated_only, _ = project_pass(stored, rule, prior_correction="none")
    assert _held(client, stored) == _wanted(expected, spec, config, run.model_version)
    moved = [r.id for r, g in zip(expected, gated_only) if (r.prediction, r.flagged) != (g.prediction, g.flagged)]
    assert len(moved) == 10  # the spam tasks the lean judge called ham: the gate alone flags them, given does not
    assert sum(g.flagged for g in gated_only) == 10 and summary["flagged"] == sum(r.flagged for r in expected) == 0
    assert summary["prior_correction"] == blocks["prior_correction"]
    assert summary["prior_correction"]["mode"] == "given"
    assert set(summary["prior_correction"]["priors"]) == {STUCK, GOOD}
    assert [x["member"] for x in summary["health_gate"]["left_out"]] == [STUCK]
    assert summary["health_gate"]["predictions"] == {"checked": 30, "rewritten": 30, "missing": 0}
    lines = adjustment_lines(summary)
    assert "Predictions the health gate and prior correction rewrote in Label Studio: 30 of 30." in lines
    assert any(line.startswith("Prior correction given: ") and "(2 judges)" in line for line in lines)
    # the ledger holds the verdicts Label Studio shows (the review reads them there) and the judges' own answers
    held = list(ledger.iter_results("7", run.model_version))
    assert [[m.probs for m in r.members] for r in held] == [[m.probs for m in r.members] for r in stored]
    assert [(r.prediction, r.confidence, r.flagged) for r in held] == [
        (r.prediction, r.confidence, r.flagged) for r in expected]
    assert ledger.flagged("7", model_version=run.model_version) == [] and ledger.count("7", run.model_version)[
        "flagged"] == 0
    assert write_back_gated(client, ledger, run, config).rewritten == 0  # a second audit finds them written
    assert gated_summary(client, ledger, run, config)["flagged"] == 0  # and re-reads the scored verdicts, not these
    assert [(r.prediction, r.flagged) for r in ledger.iter_results("7", run.model_version)] == [
        (r.prediction, r.flagged) for r in expected]


def test_without_a_correction_the_audit_pass_is_the_gate_alone(tmp_path):
    from backend.scoring.project_pass import project_pass
    from backend.worker.audit_pass import audit_pass

    ledger, config, spec, rule, stored, client, run = _lean_project(tmp_path, "none")
    assert audit_pass(ledger, run, config).corrected is None  # read back page by page: the project is not held
    summary = gated_summary(client, ledger, run, config)
    gated_only, _ = project_pass(stored, rule, prior_correction="none")
    assert _held(client, stored) == _wanted(gated_only, spec, config, run.model_version)
    assert summary["flagged"] == 10 and summary["prior_correction"] == {"mode": "none"}
    lines = adjustment_lines(summary)
    assert "Predictions the health gate rewrote in Label Studio: 30 of 30." in lines
    assert not any(line.startswith("Prior correction") for line in lines)


def test_the_default_fitted_audit_says_why_a_thin_class_keeps_the_gated_verdicts(tmp_path):
    """The lean project has 5 labels of "ham" and of "other": too few for a model of the labels in five folds, so
    the audit's last pass (fitted) writes the gate's verdicts and its summary says why."""
    from backend.scoring.label_fit import MIN_LABELS_PER_CLASS
    from backend.scoring.project_pass import project_pass

    ledger, config, spec, rule, stored, client, run = _lean_project(tmp_path, "fitted")
    summary = gated_summary(client, ledger, run, config)
    gated_only, _ = project_pass(stored, rule, prior_correction="none")
    assert _held(client, stored) == _wanted(gated_only, spec, config, run.model_version)
    assert summary["prior_correction"]["note"] == (
        f"not applied: ham has 5, other has 5; a model of the labels needs at least {MIN_LABELS_PER_CLASS} labels of "
        "every class (5 folds)")
    assert any(line.startswith("Prior correction fitted: ") and line.endswith("every class (5 folds)")
               for line in adjustment_lines(summary))


def test_an_auto_audit_writes_the_reading_it_chose_to_label_studio_and_the_ledger(tmp_path):
    """``auto`` on the lean project: ``fitted`` is refused (5 labels of two classes), so it chooses between the gate's
    verdicts and ``given`` by their agreement with the labels; both stores hold the chosen reading's verdicts."""
    from backend.scoring.project_pass import project_pass

    ledger, config, spec, rule, stored, client, run = _lean_project(tmp_path, "auto")
    summary = gated_summary(client, ledger, run, config)
    expected, blocks = project_pass(stored, rule, prior_correction="auto")
    chosen = blocks["prior_correction"]["chosen"]
    assert chosen in ("none", "given") and "fitted" in blocks["prior_correction"]["refused"]
    same, _ = project_pass(stored, rule, prior_correction=chosen)
    assert [(r.prediction, r.flagged) for r in expected] == [(r.prediction, r.flagged) for r in same]
    assert summary["prior_correction"] == blocks["prior_correction"]
    kept = pass_blocks(ledger, "7", run.model_version)  # what the report reads of the pass
    assert kept["prior_correction"] == json.loads(json.dumps(blocks["prior_correction"]))
    assert kept["health_gate"]["left_out"] == json.loads(json.dumps(blocks["health_gate"]["left_out"]))
    assert _held(client, stored) == _wanted(expected, spec, config, run.model_version)
    assert [(r.prediction, r.flagged) for r in ledger.iter_results("7", run.model_version)] == [
        (r.prediction, r.flagged) for r in expected]
    assert any(line.startswith(f"Prior correction auto: chose {'given' if chosen == 'given' else 'the judges'}")
               for line in adjustment_lines(summary))


def test_the_audit_model_version_carries_the_correction_and_none_keeps_the_old_one():
    """Two corrections, two versions (a corrected audit never shares one with an uncorrected audit); ``none`` keeps
    the version computed on main at c4f81bd, before the correction entered the audit's version (computed again when
    generic-definitions became v3: a prompt's text enters the model version)."""
    versions = {}
    for mode in ("none", "em", "batch", "given", "fitted", "auto"):
        config = EnsembleConfig(Settings.from_env({}), prior_correction=mode)
        versions[mode] = config.model_version(config.spec(CONFIG))
        assert config.ls_version(config.spec(CONFIG)).endswith(versions[mode])
    assert versions["none"] == "label-audit-412c3626df95"
    assert len(set(versions.values())) == 6
    default = EnsembleConfig(Settings.from_env({}))
    assert default.model_version(default.spec(CONFIG)) == versions["auto"]  # the default re-reads the verdicts
    env = EnsembleConfig(Settings.from_env({"LABEL_AUDIT_PRIOR_CORRECTION": "given"}))
    assert env.model_version(env.spec(CONFIG)) == versions["given"]
