"""Label Studio's own templates (sentiment, topic, spam/ham) audited end to end with no task setting.

Real Label Studio, a real rq worker, the embedded local model: ``label-audit audit`` with only the
member configured derives each project's spec, prompts and model version from its label config and
instructions. Predictions land in Label Studio with the project's own choice names and the ensemble's
confidence as score. The spam/ham project (two word labels, a ``$message`` field) then goes through
blind review, reconciliation, the report (JSON and HTML) and sync-gold. Shapes only, never verdicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue
from typer.testing import CliRunner

from backend.cli import app as label_audit
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.projectspec import attach_guidelines
from backend.ledger import Ledger
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from stats_cli.cli import app as audit_stats
from tests.backend.generic.templates import SENTIMENT, SENTIMENT_GUIDELINES, SPAM, TOPIC, TOPICS
from tests.backend.server.backend_process import REPO
from tests.support.audit_loop import audit_environment, run_audit

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

REVIEWS = ["Wonderful film, I loved every minute.", "The food was cold and the staff rude.",
           "The shop opens at nine.", "Best purchase this year!", "It broke after two days.", "It is blue."]
SENTIMENTS = ["Positive", "Negative", "Neutral", "Negative", "Positive", "Neutral"]  # two deliberately wrong
NEWS = ["The striker scored twice in the final.", "Shares fell after the earnings report.",
        "A new exoplanet was found by the telescope.", "Parliament passed the budget bill.",
        "The museum opened a sculpture exhibition.", "Leaders met at the summit in Geneva."]
MESSAGES = ["WIN a FREE iPhone now!!! click here", "Are we still on for lunch tomorrow?",
            "Cheap meds, no prescription, order today", "Mum says dinner is at 7.",
            "You have been selected for a cash prize, reply with your bank details", "Meeting moved to 3pm.",
            "Limited offer: 90% off designer watches", "Can you send me the slides?"]


def task(field: str, control: str, to_name: str, text: str, label: str) -> dict:
    return {"data": {field: text}, "annotations": [{"result": [
        {"from_name": control, "to_name": to_name, "type": "choices", "value": {"choices": [label]}}]}]}


@pytest.fixture(scope="module")
def env(label_studio, redis_url, tmp_path_factory):
    home = tmp_path_factory.mktemp("generic-e2e")
    with audit_environment(label_studio, redis_url, home, queue_prefix="generic",
                           # the tiny judge's answers sit near one half: at the binary default (0.55) it flags
                           # nothing on the spam project, whose test is about the path through the review; 0.5 is
                           # a setting a lead can choose (the worker and the command read it alike)
                           members={"LABEL_AUDIT_MEMBERS": "local:smollm2", "LABEL_AUDIT_THRESHOLD": "0.5"}) as env:
        yield env


def audit(env: dict[str, str], project: int) -> dict:
    return run_audit(env, project, timeout=900)


def check_predictions(ls, env: dict[str, str], project: int, labels: tuple[str, ...], summary: dict) -> list:
    results = {r.id: r for r in Ledger(env["DATABASE_URL"]).results(str(project), model_version=summary["model_version"])}
    assert summary["errors"] == {} or set(summary["errors"]) <= {"no_class_token"}, summary["errors"]
    for t in iter_tasks(ls.client, project, with_annotations=True):
        res = results[str(t.id)]
        assert {m.member_id.split("/")[1].split("@")[0] for m in res.members} == {
            "generic-annotator", "generic-expert-check", "generic-definitions", "generic-question"}
        (pred,) = t.predictions
        assert pred.result[0]["value"]["choices"] == [res.prediction] and res.prediction in labels
        assert pred.score == pytest.approx(res.confidence)
    return list(results.values())


def test_sentiment_and_topic_templates_are_audited_with_no_task_setting(label_studio, env):
    ls = label_studio
    sentiment, _ = ls.create_project(SENTIMENT, [task("text", "sentiment", "text", t, lab)
                                                 for t, lab in zip(REVIEWS, SENTIMENTS)],
                                     expert_instruction=SENTIMENT_GUIDELINES)
    summary = audit(env, sentiment)
    assert summary["items"] == len(REVIEWS) and summary["scored"] == len(REVIEWS)
    # the audit's last leg compared every prediction with the gated verdict: under 20 answers nobody is left out
    assert summary["health_gate"]["predictions"] == {"checked": len(REVIEWS), "rewritten": 0, "missing": 0}
    check_predictions(ls, env, sentiment, ("Positive", "Negative", "Neutral"), summary)
    config = EnsembleConfig(Settings.from_env(env))
    edited = config.model_version(config.spec(attach_guidelines(SENTIMENT, SENTIMENT_GUIDELINES + "<p>More.</p>")))
    assert summary["model_version"] == config.model_version(config.spec(attach_guidelines(SENTIMENT,
                                                                                          SENTIMENT_GUIDELINES)))
    assert edited != summary["model_version"]  # new instructions: a new model version, so a re-score

    topic, _ = ls.create_project(TOPIC, [task("text", "topic", "text", t, TOPICS[i]) for i, t in enumerate(NEWS)])
    summary = audit(env, topic)
    assert summary["scored"] == len(NEWS)
    check_predictions(ls, env, topic, TOPICS, summary)


def cli(app, env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_spam_project_through_review_report_and_sync_gold(label_studio, env, tmp_path):
    ls = label_studio
    labels = ["spam" if i % 2 == 0 else "ham" for i in range(len(MESSAGES))]
    labels[1], labels[2] = "spam", "ham"  # two wrong originals
    project, ids = ls.create_project(SPAM, [task("message", "class", "message", m, lab)
                                            for m, lab in zip(MESSAGES, labels)])
    summary = audit(env, project)
    results = check_predictions(ls, env, project, ("spam", "ham"), summary)
    flagged = [r for r in results if r.flagged]
    assert len(flagged) == sum(r.prediction != r.original and r.confidence > 0.5 for r in results)
    if not flagged:
        pytest.skip("the tiny model agreed with every original label: nothing to review")
    experts = [f"sa{uuid.uuid4().hex[:6]}@la.test", f"sb{uuid.uuid4().hex[:6]}@la.test"]
    cli(label_audit, env, "review", "push", "--project", str(project), "--experts", ",".join(experts),
        "--allow-same-instance")
    store = ReviewStore(env["DATABASE_URL"])
    projects = {p.expert: p for p in store.projects(str(project), round=ROUND_REVIEW)}
    truth = {m: ("spam" if i % 2 == 0 else "ham") for i, m in enumerate(MESSAGES)}
    for n, email in enumerate(experts):
        for t in iter_tasks(ls.client, projects[email].ls_project_id):
            assert set(t.data) == {"message"} or "label" not in t.data  # blind: inputs only
            answer = truth[t.data["message"]]
            if n == 1 and t.data["message"] == MESSAGES[1]:
                answer = "spam"  # expert B errs once, if the item was flagged
            ls.client.annotations.create(id=t.id, result=[{"from_name": "class", "to_name": "message",
                                                           "type": "choices", "value": {"choices": [answer]}}],
                                         completed_by=projects[email].expert_user_id)
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(project), "--json"))
    if rec.get("project"):
        for email in experts:
            for t in iter_tasks(ls.client, rec["project"]):
                ls.client.annotations.create(id=t.id, result=[{"from_name": "class", "to_name": "message",
                                                               "type": "choices",
                                                               "value": {"choices": [truth[t.data["message"]]]}}],
                                             completed_by=projects[email].expert_user_id)
    out = tmp_path / "report.json"
    cli(audit_stats, env, "report", "--project", str(project), "--format", "json", "--out", str(out), "--no-progress")
    doc = json.loads(out.read_text())
    sections = {s["key"]: s for s in doc["sections"]}
    assert doc["meta"]["labels"] == ["spam", "ham"] and sections["experts"]["status"] == "ok"
    assert sections["errors"]["values"]["reviewed"]["sample"] == len(flagged)
    html = tmp_path / "report.html"
    cli(audit_stats, env, "report", "--project", str(project), "--format", "html", "--out", str(html), "--no-progress")
    assert "spam" in html.read_text()
    gold = tmp_path / "gold.jsonl"
    cli(audit_stats, env, "sync-gold", "--project", str(project), "--to-labelstudio", "--out", str(gold))
    rows = {r["id"]: r for r in map(json.loads, gold.read_text().splitlines())}
    assert len(rows) == len(MESSAGES)
    for r in flagged:
        assert rows[str(r.id)]["gold"] == truth[MESSAGES[ids.index(int(r.id))]]


def test_a_nested_choices_project_is_refused_in_one_line_and_nothing_is_queued(label_studio, env, redis_url):
    xml = SENTIMENT.replace('choice="single-radio"', 'choice="multiple" allowNested="true"')
    project, _ = label_studio.create_project(xml, [{"data": {"text": "fine"}}])
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("label-audit")), "audit", "--project", str(project)],
        cwd=REPO, env={**os.environ, **env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    message = " ".join(proc.stderr.split())
    assert "allows nested choices" in message and "Traceback" not in proc.stderr
    assert Queue(env["LABEL_AUDIT_QUEUE"], connection=Redis.from_url(redis_url)).count == 0
    assert Ledger(env["DATABASE_URL"]).project(str(project)) is None
