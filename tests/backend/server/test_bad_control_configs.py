"""A label config whose controls cannot be audited is refused with its reason on every entry point (issue 40).

The ML backend's routes (the app factory's test client, a real Redis queue, a real SQLite ledger), a worker's
job (called as rq calls it, with this worker's settings), and ``label-audit score``: each answers a clear
refusal, never an HTTP 500, a traceback or a job retried forever.
"""

from __future__ import annotations

import base64
import json

import pytest
from typer.testing import CliRunner

from backend.cli import app as cli_app
from backend.config.settings import Settings
from backend.ledger import Ledger
from backend.server import create_app
from backend.server.auth import BasicAuth
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.jobs import score_tasks

pytestmark = pytest.mark.redis

AUTH = {"Authorization": "Basic " + base64.b64encode(b"ls:s3cret").decode()}


def _config(controls: str) -> str:
    return f"<View><Text name='t' value='$t'/>{controls}</View>"


NUMBER_1E12 = _config("<Number name='n' toName='t' min='0' max='1000000000000'/>")  # was MemoryError: HTTP 500
NUMBER_1E300 = _config("<Number name='n' toName='t' min='0' max='1e200'/>")  # was OverflowError: HTTP 500
SLASHED = _config("<Rating name='q/1' toName='t' maxRating='3'/><Rating name='q' toName='t'/>")
SLASH_BESIDE_NUMBER = _config("<Number name='n' toName='t' min='1' max='5'/>"
                              "<Choices name='x/y' toName='t'><Choice value='a'/><Choice value='b'/></Choices>")
REASONS = {NUMBER_1E12: "spans over 10^12 values", NUMBER_1E300: "spans over 10^200 values",
           SLASHED: "cannot hold '/'", SLASH_BESIDE_NUMBER: "cannot hold '/'"}


@pytest.fixture()
def client(ledger, queue, config):
    return create_app(ledger=ledger, queue=queue, config=config, auth=BasicAuth("ls", "s3cret")).test_client()


@pytest.mark.parametrize("label_config", list(REASONS))
def test_setup_predict_and_webhook_refuse_the_config_with_its_reason(client, ledger, queue, label_config):
    task = {"id": 1, "data": {"t": "text"}, "annotations": []}
    answers = {
        "setup": client.post("/setup", json={"project": "7.1", "schema": label_config}, headers=AUTH),
        "predict": client.post("/predict", json={"project": "7.1", "label_config": label_config, "tasks": [task]},
                               headers=AUTH),
        "webhook": client.post("/webhook", json={"action": "TASKS_CREATED", "tasks": [task],
                                                 "project": {"id": 7, "label_config": label_config}}, headers=AUTH),
    }
    for route, resp in answers.items():
        assert resp.status_code == 400, (route, resp.status_code, resp.get_data(as_text=True)[:300])
        assert REASONS[label_config] in resp.json["error"], route
    assert queue.count == 0 and ledger.project("7") is None  # nothing queued, the config never stored


@pytest.mark.parametrize("label_config", [NUMBER_1E12, SLASH_BESIDE_NUMBER])
def test_a_worker_job_records_each_task_as_failed_once_and_is_not_retried(label_config, tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    for name, value in {"DATABASE_URL": db, "LABEL_AUDIT_HOME": str(tmp_path), "OPENAI_API_KEY": "sk-test-not-used",
                        "LABEL_AUDIT_MEMBERS": "openai:smol@http://127.0.0.1:9/v1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    try:  # the version a job for this config carries (a config refused now has none: any version will do)
        version = EnsembleConfig(settings).model_version(EnsembleConfig(settings).spec(label_config))
    except ValueError:
        version = "v-any"
    tasks = [{"id": i, "data": {"t": f"text {i}"}, "annotations": []} for i in (1, 2)]
    counts = score_tasks(project="7", tasks=tasks, label_config=label_config, model_version=version, job_key="bad-cfg",
                         settings=settings)  # returns: rq does not retry a job that returned
    assert counts == {"scored": 0, "errors": 2, "deferred": 0, "imported": 0}
    ledger = Ledger(db)
    assert ledger.jobs.get("bad-cfg").status == "failed"
    results = ledger.results("7", model_version=version)
    assert [r.error.reason for r in results] == ["malformed_task"] * 2
    assert all(REASONS[label_config] in r.error.detail for r in results)


@pytest.mark.parametrize("label_config", [NUMBER_1E12, SLASHED])
def test_score_refuses_the_config_in_one_line(label_config, tmp_path):
    config = tmp_path / "config.xml"
    config.write_text(label_config, "utf-8")
    data = tmp_path / "items.jsonl"
    data.write_text(json.dumps({"id": "1", "t": "text", "label": json.dumps({"q": "3", "q/1": "2"})}) + "\n", "utf-8")
    result = CliRunner().invoke(cli_app, ["score", str(data), "--label-config", str(config),
                                          "--member", "openai:smol@http://127.0.0.1:9/v1", "--no-cache"],
                                env={"OPENAI_API_KEY": "sk-test-not-used", "LABEL_AUDIT_HOME": str(tmp_path)})
    assert result.exit_code == 2, (repr(result.exception), result.output)  # the one error line of every command
    assert REASONS[label_config] in " ".join(result.output.split())


def test_a_worker_records_an_invalid_answer_as_the_tasks_counted_bad_label(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    for name, value in {"DATABASE_URL": db, "LABEL_AUDIT_HOME": str(tmp_path), "OPENAI_API_KEY": "sk-test-not-used",
                        "LABEL_AUDIT_MEMBERS": "openai:smol@http://127.0.0.1:9/v1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    label_config = _config("<Rating name='r' toName='t' maxRating='5'/>")
    settings = Settings.from_env()
    version = EnsembleConfig(settings).model_version(EnsembleConfig(settings).spec(label_config))
    tasks = [{"id": i, "data": {"t": f"text {i}"}, "annotations": [{"id": 10 * i, "completed_by": 1, "result": [
        {"from_name": "r", "to_name": "t", "type": "rating", "value": {"rating": rating}}]}]}
        for i, rating in ((1, 6), (2, None))]  # no valid task: no member is called
    counts = score_tasks(project="7", tasks=tasks, label_config=label_config, model_version=version, job_key="bad-ans",
                         settings=settings)
    assert counts["errors"] == 2 and counts["scored"] == 0
    ledger = Ledger(db)
    assert ledger.count("7", version)["errors"] == 2  # counted where every error is (was: two unlabelled tasks scored)
    details = {r.id: (r.error.reason, r.error.detail) for r in ledger.results("7", model_version=version)}
    assert details == {"1": ("bad_label", "annotation 10: control 'r' answers rating=6, which is not one of its labels "
                                          "(1..5)"),
                       "2": ("bad_label", "annotation 20: control 'r' answers rating=None, which is not one of its "
                                          "labels (1..5)")}
    assert ledger.crowd_labels("7") == {}  # no empty crowd label stored for them
