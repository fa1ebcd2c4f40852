"""A nominal project made from Label Studio's topic template, through review, report and sync-gold.

Six word labels (one with a slash, one with an ampersand), 18 items, 4 flipped originals. The
ensemble's verdicts are planted in the ledger (the local model has no judging signal; scoring through
the worker is covered by ``tests/backend/server/test_generic_projects_e2e.py``): it predicts the truth
plus 2 false alarms. Two test-played experts review blind, expert B errs once, reconciliation settles
it. The k-class numbers (Fleiss κ, per-category agreement, confusion original -> gold, per-class error
counts with Clopper-Pearson intervals) are checked against statsmodels / scikit-learn / scipy.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from typer.testing import CliRunner

from backend.cli import app as label_audit
from backend.labelstudio.client import iter_tasks
from backend.ledger import Ledger
from backend.scoring.results import ItemResult, MemberResult
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from stats_cli.cli import app as audit_stats
from tests.backend.generic.templates import TOPIC, TOPICS

pytestmark = [pytest.mark.labelstudio]

N, FLIPPED, FALSE_ALARMS = 18, (2, 5, 9, 13), (7, 16)
MEMBERS = ("local:m1/generic-annotator@v1", "local:m1/generic-question@v1")


def choice(label: str) -> list[dict[str, Any]]:
    return [{"from_name": "topic", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


def truth_of_k(k: int) -> str:
    return TOPICS[k % len(TOPICS)]


def wrong_of(label: str) -> str:
    return TOPICS[(TOPICS.index(label) + 1) % len(TOPICS)]


def text_of(k: int) -> str:
    return f"News item {k} about {truth_of_k(k).lower()}."


def k_of_text(text: str) -> int:
    return int(text.split()[2])


def verdict(task_id: int, k: int, original: str) -> ItemResult:
    truth = truth_of_k(k)
    pred = wrong_of(truth) if k in FALSE_ALARMS else truth
    conf = 0.55 + 0.4 * k / (N - 1)
    rest = (1 - conf) / (len(TOPICS) - 1)
    probs = {lab: (conf if lab == pred else rest) for lab in TOPICS}
    members = tuple(MemberResult(m, probs=probs, method="logits") for m in MEMBERS)
    return ItemResult(id=str(task_id), original=original, prediction=pred, confidence=conf, probs=probs,
                      flagged=pred != original, members=members)


def cli(app, env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def play(ls, project_id: int, uid: int, decide) -> dict[str, str]:
    given = {}
    for task in iter_tasks(ls.client, project_id):
        label = decide(task.data)
        ls.client.annotations.create(id=task.id, result=choice(label), completed_by=uid)
        given[task.data["text"]] = label
    return given


@pytest.fixture(scope="module")
def run(label_studio, tmp_path_factory) -> dict[str, Any]:
    ls = label_studio
    originals = {k: (wrong_of(truth_of_k(k)) if k in FLIPPED else truth_of_k(k)) for k in range(N)}
    tasks = [{"data": {"text": text_of(k)}, "annotations": [{"result": choice(originals[k])}]} for k in range(N)]
    source, ids = ls.create_project(TOPIC, tasks, title="nominal e2e",
                                    expert_instruction="<p>Pick the <b>main</b> topic of the news item.</p>")
    db = f"sqlite:///{tmp_path_factory.mktemp('nominal') / 'audit.sqlite'}"
    env = {"DATABASE_URL": db, "LABEL_STUDIO_URL": ls.url, "LABEL_STUDIO_API_KEY": ls.token,
           "LABEL_AUDIT_HOME": str(tmp_path_factory.mktemp("nominal-home"))}
    Ledger(db).record_many(str(source), "planted-v1", [verdict(t, k, originals[k]) for k, t in enumerate(ids)])
    experts = [f"na{uuid.uuid4().hex[:6]}@la.test", f"nb{uuid.uuid4().hex[:6]}@la.test"]
    cli(label_audit, env, "review", "push", "--project", str(source), "--experts", ",".join(experts),
        "--allow-same-instance", "--json")
    store = ReviewStore(db)
    projects = {p.expert: p for p in store.projects(str(source), round=ROUND_REVIEW)}
    planted_k = min(k_of_text(text_of(k)) for k in (*FLIPPED, *FALSE_ALARMS))

    def truth(data):
        return truth_of_k(k_of_text(data["text"]))

    def expert_b(data):
        k = k_of_text(data["text"])
        return wrong_of(wrong_of(truth_of_k(k))) if k == planted_k else truth_of_k(k)

    a = play(ls, projects[experts[0]].ls_project_id, projects[experts[0]].expert_user_id, truth)
    b = play(ls, projects[experts[1]].ls_project_id, projects[experts[1]].expert_user_id, expert_b)
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(source), "--json"))
    for email in experts:
        play(ls, rec["project"], projects[email].expert_user_id, truth)
    id_of = {text_of(k): str(t) for k, t in enumerate(ids)}
    round1 = {id_of[text]: (a[text], b[text]) for text in a}
    return {"env": env, "source": source, "ids": ids, "originals": originals, "round1": round1,
            "k_of": {str(t): k for k, t in enumerate(ids)}}


def section(doc: dict, key: str) -> dict:
    return next(s for s in doc["sections"] if s["key"] == key)


def report(run: dict, tmp_path, fmt: str = "json"):
    out = tmp_path / f"report.{fmt}"
    cli(audit_stats, run["env"], "report", "--project", str(run["source"]), "--format", fmt, "--out", str(out),
        "--no-progress")
    return json.loads(out.read_text()) if fmt == "json" else out.read_text()


def test_k_class_report_matches_the_libraries(run, tmp_path):
    doc = report(run, tmp_path)
    ids = sorted(run["round1"])
    assert len(ids) == len(FLIPPED) + len(FALSE_ALARMS)
    code = {lab: i for i, lab in enumerate(TOPICS)}
    before = np.array([[code[run["round1"][t][0]], code[run["round1"][t][1]]] for t in ids])
    experts = section(doc, "experts")
    assert experts["status"] == "ok"
    assert experts["values"]["before"]["fleiss_kappa"] == pytest.approx(fleiss_kappa(aggregate_raters(before)[0]))

    classes = section(doc, "classes")
    assert classes["status"] == "ok", classes
    truth = {t: truth_of_k(run["k_of"][t]) for t in ids}
    original = {t: run["originals"][run["k_of"][t]] for t in ids}
    expected = confusion_matrix([original[t] for t in ids], [truth[t] for t in ids], labels=list(TOPICS))
    assert np.array_equal(np.array(classes["values"]["confusion"]["counts"]), expected)
    for row in classes["values"]["per_class"]:
        n = sum(original[t] == row["label"] for t in ids)
        k = sum(original[t] == row["label"] and truth[t] != row["label"] for t in ids)
        assert (row["reviewed"], row["errors"]) == (n, k)
        assert "cp_low" not in row  # reviewed items are no random sample of a class: no interval (issue 22)
    assert section(doc, "errors")["status"] == "ok"


def test_html_report_and_sync_gold_for_word_labels(run, tmp_path):
    html = report(run, tmp_path, fmt="html")
    assert "Science/Tech" in html and "Arts &amp; Culture" in html and run["env"]["LABEL_STUDIO_API_KEY"] not in html
    out = tmp_path / "gold.jsonl"
    first = cli(audit_stats, run["env"], "sync-gold", "--project", str(run["source"]), "--to-labelstudio",
                "--out", str(out))
    assert f"{len(run['round1'])} created" in first
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert len(rows) == N
    for t, row in rows.items():
        k = run["k_of"][t]
        assert row["original"] == run["originals"][k]
        assert row["gold"] == truth_of_k(k) or t not in run["round1"]
