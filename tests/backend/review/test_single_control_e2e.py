"""One `<Choices>` of a two-control project audited with ``LABEL_AUDIT_CONTROL``, then reviewed and reported.

Real Label Studio, a real rq worker, the embedded local model. The config has a sentiment and a topic
control; the audit is narrowed to ``topic`` by the worker's and the command's setting only. The review,
the report and ``sync-gold`` then run WITHOUT that setting: they find the control in the ledger, beside
the label config (before, every one of them refused the config: "several <Choices> controls ... name the
one to audit"). The review covers every item (a control sample of all of them), so the chain does not
depend on what the tiny model flags. Shapes and the chain only, never the model's verdicts.
"""

from __future__ import annotations

import json
import uuid

import pytest
from typer.testing import CliRunner

from backend.cli import app as label_audit
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.gold_marks import is_gold_annotation
from backend.labelstudio.taskshape import field
from backend.ledger import Ledger
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from stats_cli.cli import app as audit_stats
from tests.support.audit_loop import audit_environment, run_audit

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

TWO_CONTROLS = """<View>
  <Text name="text" value="$text"/>
  <Header value="How does the writer feel?"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="Positive"/>
    <Choice value="Negative"/>
  </Choices>
  <Header value="What is the text about?"/>
  <Choices name="topic" toName="text" choice="single">
    <Choice value="Sports"/>
    <Choice value="Politics"/>
    <Choice value="Science"/>
  </Choices>
</View>"""
TEXTS = ["What a great final, the striker scored twice!", "Parliament rejected the budget again, sadly.",
         "The telescope found a new exoplanet.", "The coach was sacked after the awful season."]
TRUTH = ["Sports", "Politics", "Science", "Sports"]
ORIGINAL = ["Sports", "Science", "Science", "Politics"]  # two wrong topics
SENTIMENT = ["Positive", "Negative", "Positive", "Negative"]
SPLIT = 1  # expert B answers Science on this item: round 2 settles it


def annotation(topic: str | None, sentiment: str | None = None) -> list[dict]:
    return [{"from_name": name, "to_name": "text", "type": "choices", "value": {"choices": [value]}}
            for name, value in (("sentiment", sentiment), ("topic", topic)) if value is not None]


def cli(app, env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def audited(label_studio, redis_url, tmp_path_factory):
    """The project audited on ``topic`` (the worker and the command both set), and the settings without it."""
    home = tmp_path_factory.mktemp("single-control-e2e")
    ls = label_studio
    project, ids = ls.create_project(TWO_CONTROLS, [{"data": {"text": t}, "annotations": [{"result": annotation(o, s)}]}
                                                    for t, o, s in zip(TEXTS, ORIGINAL, SENTIMENT)],
                                     title="two controls, audited on one")
    with audit_environment(ls, redis_url, home, queue_prefix="one-control",
                           members={"LABEL_AUDIT_MEMBERS": "local:smollm2", "LABEL_AUDIT_CONTROL": "topic"}) as env:
        summary = run_audit(env, project, timeout=900)
    plain = {k: v for k, v in env.items() if k != "LABEL_AUDIT_CONTROL"}
    return {"project": project, "ids": ids, "summary": summary, "env": plain}


def test_the_audited_control_is_stored_with_the_label_config(audited):
    ledger = Ledger(audited["env"]["DATABASE_URL"])
    stored = ledger.project(str(audited["project"]))
    assert stored["control"] == "topic" and "<Choices name=\"sentiment\"" in stored["label_config"]
    results = ledger.results(str(audited["project"]), model_version=audited["summary"]["model_version"])
    assert sorted(r.original for r in results) == sorted(ORIGINAL)  # the topic's originals, not the sentiment's
    assert all(r.prediction in {"Sports", "Politics", "Science"} for r in results if r.prediction is not None)


@pytest.fixture(scope="module")
def reviewed(label_studio, audited):
    """Every item reviewed by two experts on the topic control (one split, settled in round 2)."""
    ls, env, source = label_studio, audited["env"], audited["project"]
    experts = [f"oa{uuid.uuid4().hex[:6]}@la.test", f"ob{uuid.uuid4().hex[:6]}@la.test"]
    push = json.loads(cli(label_audit, env, "review", "push", "--project", str(source), "--experts", ",".join(experts),
                          "--sample", str(len(TEXTS)), "--allow-same-instance", "--json"))
    projects = {p.expert: p for p in ReviewStore(env["DATABASE_URL"]).projects(str(source), round=ROUND_REVIEW)}
    truth = dict(zip(TEXTS, TRUTH))
    for n, email in enumerate(experts):
        for t in iter_tasks(ls.client, projects[email].ls_project_id):
            answer = "Science" if n == 1 and t.data["text"] == TEXTS[SPLIT] else truth[t.data["text"]]
            ls.client.annotations.create(id=t.id, result=annotation(answer), completed_by=projects[email].expert_user_id)
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(source), "--json"))
    for email in experts:
        for t in iter_tasks(ls.client, rec["project"]):
            ls.client.annotations.create(id=t.id, result=annotation(TRUTH[SPLIT]),
                                         completed_by=projects[email].expert_user_id)
    return {"push": push, "experts": experts, "projects": projects, "rec": rec}


def test_review_shows_only_the_audited_control_and_settles_every_item(label_studio, audited, reviewed):
    ls, env, source = label_studio, audited["env"], audited["project"]
    assert reviewed["rec"]["disagreements"] == 1
    for email in reviewed["experts"]:
        project = ls.client.projects.get(id=reviewed["projects"][email].ls_project_id)
        assert 'name="topic"' in project.label_config and "sentiment" not in project.label_config
        for t in iter_tasks(ls.client, project.id):
            assert set(t.data) <= {"text", REF_FIELD}, t.data  # inputs only: neither original shows
    status = json.loads(cli(label_audit, env, "review", "status", "--project", str(source), "--json"))
    assert status["items"] == len(TEXTS), status
    gold = {g["task_id"]: g for g in json.loads(cli(label_audit, env, "review", "gold", "--project", str(source),
                                                    "--json"))}
    assert {task_id: g["gold"] for task_id, g in gold.items()} == {str(i): t for i, t in zip(audited["ids"], TRUTH)}


def test_report_and_sync_gold_work_on_the_stored_control(label_studio, audited, reviewed, tmp_path):
    env, source = audited["env"], audited["project"]
    out = tmp_path / "report.json"
    cli(audit_stats, env, "report", "--project", str(source), "--format", "json", "--out", str(out), "--no-progress")
    doc = json.loads(out.read_text())
    sections = {s["key"]: s for s in doc["sections"]}
    assert doc["meta"]["labels"] == ["Sports", "Politics", "Science"] and sections["experts"]["status"] == "ok"
    assert sections["errors"]["values"]["reviewed"]["sample"] == len(TEXTS)
    html = tmp_path / "report.html"
    cli(audit_stats, env, "report", "--project", str(source), "--format", "html", "--out", str(html), "--no-progress")
    assert "Politics" in html.read_text() and env["LABEL_STUDIO_API_KEY"] not in html.read_text()
    gold_file = tmp_path / "gold.jsonl"
    first = cli(audit_stats, env, "sync-gold", "--project", str(source), "--to-labelstudio", "--out", str(gold_file))
    assert f"{len(TEXTS)} created" in first
    rows = {r["id"]: r for r in map(json.loads, gold_file.read_text().splitlines())}
    assert {task_id: r["label"] for task_id, r in rows.items()} == {str(i): t for i, t in zip(audited["ids"], TRUTH)}
    again = cli(audit_stats, env, "sync-gold", "--project", str(source), "--to-labelstudio")
    assert f"{len(TEXTS)} unchanged" in again
    for t, truth in zip(iter_tasks(label_studio.client, source, with_annotations=True), TRUTH):
        (gold,) = [a for a in t.annotations if is_gold_annotation(a)]
        assert [(field(r, "from_name"), field(r, "value")["choices"]) for r in field(gold, "result")] == [
            ("topic", [truth])]


def test_a_project_audited_on_one_control_before_the_control_was_stored_is_refused_with_what_to_do(
        label_studio, tmp_path):
    """A ledger upgraded from before revision 0004: one control's verdicts, no control stored."""
    from backend.scoring.results import ErrorInfo, ItemResult

    project, ids = label_studio.create_project(TWO_CONTROLS, [{"data": {"text": TEXTS[0]}}], title="old audit")
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'old.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
           "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token}
    ledger = Ledger(env["DATABASE_URL"])
    ledger.set_project(str(project), label_config=TWO_CONTROLS)  # as the migration leaves it: control NULL
    unreadable = ItemResult(id="0", original=None, prediction=None, confidence=None, probs=None, flagged=False,
                            error=ErrorInfo("bad_input", False, "missing input field(s): text"))
    ledger.record_many(str(project), "old-v1", [unreadable])  # workers record errors first: the first row has no value
    ledger.record_many(str(project), "old-v1", [ItemResult(id=str(ids[0]), original="Sports", prediction="Politics",
                                                           confidence=0.9, probs={"Politics": 0.9}, flagged=True)])
    result = CliRunner().invoke(label_audit, ["review", "push", "--project", str(project), "--experts", "x@la.test",
                                              "--allow-same-instance"], env=env)
    message = " ".join(result.output.split())
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "before label-audit stored which" in message and "LABEL_AUDIT_CONTROL" in message, message
