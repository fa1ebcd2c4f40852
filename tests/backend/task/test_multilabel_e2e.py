"""A Label Studio multi-label project audited, reviewed, reported and synced with only the members set.

Real Label Studio, a real rq worker, the embedded local model. The first project (the multi-label
template: four labels, two with hints, one with an alias) is scored through ``label-audit audit``: each
task gets one prediction listing the predicted set with the ensemble's score under the project's model
version, flagged ones land in the suspects tab, and every label was one yes/no question. The local model
has no judging signal (shapes only, never verdicts), so the review chain runs on a second project whose
verdicts are planted in the ledger: blind review with the multi-select control, per-label reconciliation,
gold per label, report JSON and HTML with the set statistics (checked against nltk / scikit-learn), and
sync-gold (sets into Label Studio, lists into the file). Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance
from sklearn.metrics import accuracy_score, hamming_loss
from sklearn.preprocessing import MultiLabelBinarizer
from typer.testing import CliRunner

from backend.cli import app as label_audit
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.gold_marks import is_gold_annotation
from backend.labelstudio.taskshape import field
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import SUSPECTS_TITLE, suspect_marker
from backend.labelstudio.modelname import version_key
from backend.ledger import Ledger
from backend.scoring.results import ItemResult, MemberResult
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from backend.families.multilabel import NO, YES
from stats_cli.cli import app as audit_stats
from tests.support.audit_loop import audit_environment, run_audit
from tests.backend.task.templates import LABELS, TOPICS_MULTI, regions
from tests.support.browser import ARTIFACTS, headless_chromium, screenshot_suspects_tab
from tests.support.ls_controls import open_task

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

SPEC = spec_from_label_config(TOPICS_MULTI)
FAMILY = SPEC.task_family
NEWS = [("The striker scored twice and the club's shares rose.", ["Sports", "Business"]),
        ("Parliament passed the new data-protection law for apps.", ["Politics"]),  # Tech left out
        ("Nothing much happened in town today.", [])]


def as_set(labels) -> str:
    return FAMILY.encode_set(SPEC, labels)


@pytest.fixture(scope="module")
def env(label_studio, redis_url, tmp_path_factory):
    home = tmp_path_factory.mktemp("multilabel-e2e")
    members = home / "members.yaml"  # the members (two prompts of the embedded model): the only setting
    members.write_text("- provider: local\n  model: smollm2\n  prompts: [generic-annotator, generic-definitions]\n")
    with audit_environment(label_studio, redis_url, home, queue_prefix="multilabel",
                           members={"LABEL_AUDIT_MEMBERS_FILE": str(members)}) as env:
        yield env


def cli(app, env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def audit(env: dict[str, str], project: int) -> dict:
    return run_audit(env, project, timeout=1500)


def test_the_worker_predicts_sets_with_scores_and_fills_the_suspects_tab(label_studio, env):
    ls = label_studio
    project, ids = ls.create_project(TOPICS_MULTI, [{"data": {"text": t}, "annotations": [{"result": regions(labs)}]}
                                                    for t, labs in NEWS], title="multi-label e2e")
    summary = audit(env, project)
    assert summary["items"] == len(NEWS) and summary["scored"] == len(NEWS), summary
    results = {r.id: r for r in Ledger(env["DATABASE_URL"]).results(str(project), model_version=summary["model_version"])}
    flagged = 0
    for t, (_, original) in zip(iter_tasks(ls.client, project, with_annotations=True), NEWS):
        res = results[str(t.id)]
        assert res.original == as_set(original)
        assert [q.id for q in res.questions] == list(LABELS)  # one yes/no question per label
        assert {m.member_id.split("#")[1] for m in res.members} == set(LABELS)
        assert all(set(q.probs) == {YES, NO} for q in res.questions)
        assert res.flagged == any(q.flagged for q in res.questions)
        (pred,) = t.predictions
        assert version_key(pred.model_version) == summary["model_version"] != pred.model_version
        assert pred.score == pytest.approx(res.confidence)
        (region,) = pred.result
        assert region["from_name"] == "topics" and region["type"] == "choices"
        assert region["value"]["choices"] == FAMILY.export(SPEC, res.prediction)
        assert (region.get("id") == suspect_marker(summary["model_version"])) == res.flagged
        flagged += res.flagged
    resp = ls.client._client_wrapper.httpx_client.request("api/dm/views", method="GET", params={"project": project})
    assert SUSPECTS_TITLE in [v["data"]["title"] for v in resp.json()]
    screenshot_suspects_tab(ls, project, "multilabel-suspects-tab.png")
    assert summary["flagged"] == flagged


N = 10
TRUTH = [["Sports"], ["Politics", "Tech"], ["Business"], ["Tech"], ["Sports", "Business"], ["Politics"],
         ["Tech", "Business"], [], ["Sports", "Politics"], ["Business"]]
ORIGINAL = {1: ["Politics"], 3: ["Tech", "Sports"], 6: ["Business"], 8: ["Sports", "Politics", "Tech"]}  # planted
FALSE_ALARM = 4  # the ensemble wrongly drops Business


def planted_verdict(task_id: int, k: int) -> ItemResult:
    original = set(ORIGINAL.get(k, TRUTH[k]))
    predicted = set(TRUTH[k]) - ({"Business"} if k == FALSE_ALARM else set())
    questions = []
    for lab in LABELS:
        p_yes = 0.9 if lab in predicted else 0.1
        pred, orig = (YES if lab in predicted else NO), (YES if lab in original else NO)
        probs = {YES: p_yes, NO: 1 - p_yes}
        questions.append(ItemResult(id=lab, original=orig, prediction=pred, confidence=0.9, probs=probs,
                                    flagged=pred != orig, members=()))
    members = tuple(MemberResult(f"local:m1/generic-annotator@v1#{q.id}", probs=q.probs) for q in questions)
    return ItemResult(id=str(task_id), original=as_set(original), prediction=as_set(predicted), confidence=0.9,
                      probs={q.id: q.probs[YES] for q in questions}, flagged=original != predicted,
                      members=members, questions=tuple(questions))


def play(ls, project_id: int, uid: int, decide) -> dict[str, list[str]]:
    given = {}
    for task in iter_tasks(ls.client, project_id):
        labels = decide(task.data)
        ls.client.annotations.create(id=task.id, result=regions(labels), completed_by=uid)
        given[task.data["text"]] = labels
    return given


def k_of(text: str) -> int:
    return int(text.split()[1].rstrip(":"))


@pytest.fixture(scope="module")
def review(label_studio, env, tmp_path_factory):
    ls = label_studio
    texts = [f"Item {k}: a news text about {', '.join(TRUTH[k]) or 'nothing in particular'}." for k in range(N)]
    tasks = [{"data": {"text": texts[k]}, "annotations": [{"result": regions(ORIGINAL.get(k, TRUTH[k]))}]}
             for k in range(N)]
    source, ids = ls.create_project(TOPICS_MULTI, tasks, title="multi-label review e2e")
    Ledger(env["DATABASE_URL"]).record_many(str(source), "planted-v1", [planted_verdict(t, k) for k, t in enumerate(ids)])
    experts = [f"ma{uuid.uuid4().hex[:6]}@la.test", f"mb{uuid.uuid4().hex[:6]}@la.test"]
    push = json.loads(cli(label_audit, env, "review", "push", "--project", str(source), "--experts", ",".join(experts),
                          "--allow-same-instance", "--initial-passwords", "--json"))
    store = ReviewStore(env["DATABASE_URL"])
    projects = {p.expert: p for p in store.projects(str(source), round=ROUND_REVIEW)}
    split_k = 3  # expert B leaves Sports on item 3 (the experts split on that one label)
    a = play(ls, projects[experts[0]].ls_project_id, projects[experts[0]].expert_user_id, lambda d: TRUTH[k_of(d["text"])])
    b = play(ls, projects[experts[1]].ls_project_id, projects[experts[1]].expert_user_id,
             lambda d: TRUTH[k_of(d["text"])] + (["Sports"] if k_of(d["text"]) == split_k else []))
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(source), "--json"))
    assert rec["disagreements"] == 1
    rec_tasks = list(iter_tasks(ls.client, rec["project"]))
    for email in experts:  # round 2 agrees on Tech only, and tries to add Politics: round 1 agreed on it, it stays out
        for t in rec_tasks:
            ls.client.annotations.create(id=t.id, result=regions(["Tech", "Politics"]),
                                         completed_by=projects[email].expert_user_id)
    return {"source": source, "ids": ids, "experts": experts, "projects": projects, "a": a, "b": b,
            "rec": rec, "rec_tasks": rec_tasks, "passwords": push.get("passwords", {}), "texts": texts}


def test_blind_review_uses_the_multi_select_control_and_round_two_shows_the_sets(label_studio, review):
    ls = label_studio
    reviewed_k = {k_of(t) for t in review["a"]}
    assert reviewed_k == set(ORIGINAL) | {FALSE_ALARM}
    for email in review["experts"]:
        project = ls.client.projects.get(id=review["projects"][email].ls_project_id)
        assert 'choice="multiple"' in project.label_config and "required" not in project.label_config
        assert "Technology" in project.label_config and 'alias="Tech"' in project.label_config
        for t in iter_tasks(ls.client, project.id, with_annotations=True):
            assert set(t.data) <= {"text", REF_FIELD}, t.data  # inputs only: blind
            assert not t.predictions
    (task,) = review["rec_tasks"]
    shown = " | ".join(str(v) for v in task.data.values())
    assert "Expert A: Technology" in shown and "Expert B: Sports, Technology" in shown
    _screenshot_expert(ls, review)


def _screenshot_expert(ls, review) -> None:
    email = review["experts"][0]
    password = review["passwords"].get(email)
    if not password:
        pytest.fail("review push printed no initial password for a new expert")
    project_id = review["projects"][email].ls_project_id
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{ls.url}/user/login/")
        page.fill("input[name=email]", email)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_load_state("networkidle")
        task_id = next(iter(iter_tasks(ls.client, project_id))).id
        open_task(page, ls.url, project_id, task_id)
        page.screenshot(path=str(ARTIFACTS / "multilabel-expert-review.png"))


def _report(env, source: int, tmp_path: Path, fmt: str):
    out = tmp_path / f"report.{fmt}"
    cli(audit_stats, env, "report", "--project", str(source), "--format", fmt, "--out", str(out), "--no-progress")
    return json.loads(out.read_text()) if fmt == "json" else out.read_text()


def test_report_gives_the_set_statistics_and_per_label_gold(env, review, tmp_path):
    doc = _report(env, review["source"], tmp_path, "json")
    sections = {s["key"]: s for s in doc["sections"]}
    assert doc["meta"]["family"] == "multilabel"
    sets = sections["label_sets"]
    assert sets["status"] == "ok", sets
    round1 = {t: (frozenset(review["a"][t]), frozenset(review["b"][t])) for t in review["a"]}
    binarizer = MultiLabelBinarizer(classes=list(LABELS))
    xa = binarizer.fit_transform([a for a, _ in round1.values()])
    xb = binarizer.transform([b for _, b in round1.values()])
    agreement = sets["values"]["agreement"]
    assert agreement["exact_match"] == pytest.approx(accuracy_score(xa, xb))
    assert agreement["hamming"] == pytest.approx(1 - hamming_loss(xa, xb))
    task = AnnotationTask(data=[(r, t, s) for t, pair in round1.items() for r, s in zip("ab", pair)],
                          distance=lambda x, y: 0.0 if not x and not y else masi_distance(x, y))
    assert agreement["alpha_masi"] == pytest.approx(task.alpha())
    per_label = next(t for t in sets["tables"] if t["title"].startswith("Expert agreement per label"))
    column = per_label["columns"].index("% agreement")  # a "%" column prints percents, not shares
    for j, row in enumerate(per_label["rows"]):
        assert row[0] == LABELS[j] and row[column] == pytest.approx(100 * accuracy_score(xa[:, j], xb[:, j]))
    # gold per label: the original where the ensemble agrees, else the experts' (round 2 only on the split label)
    errors = {row["label"]: row for row in sets["values"]["errors"]}
    gold = {k: set(TRUTH[k]) for k in set(ORIGINAL) | {FALSE_ALARM}}
    for lab in LABELS:
        added = sum(lab in gold[k] and lab not in set(ORIGINAL.get(k, TRUTH[k])) for k in gold)
        dropped = sum(lab not in gold[k] and lab in set(ORIGINAL.get(k, TRUTH[k])) for k in gold)
        assert (errors[lab]["reviewed"], errors[lab]["added"], errors[lab]["dropped"]) == (len(gold), added, dropped)
    assert sections["classes"]["status"] == "not applicable" and "Label sets" in sections["classes"]["reason"]
    assert sections["errors"]["status"] == "ok"
    html = _report(env, review["source"], tmp_path, "html")
    assert "Label sets, per label" in html and "alpha (MASI)" in html and env["LABEL_STUDIO_API_KEY"] not in html
    with headless_chromium() as browser:  # what the lead reads: the section as rendered (screenshot looked at)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto((tmp_path / "report.html").as_uri())
        section = page.locator("#label_sets")
        assert section.is_visible() and all(lab in section.inner_text() for lab in LABELS)
        section.screenshot(path=str(ARTIFACTS / "multilabel-report-label-sets.png"))


def test_sync_gold_writes_the_corrected_sets_to_label_studio_and_lists_to_the_file(label_studio, env, review, tmp_path):
    out = tmp_path / "gold.jsonl"
    first = cli(audit_stats, env, "sync-gold", "--project", str(review["source"]), "--to-labelstudio", "--out", str(out))
    settled = set(ORIGINAL) | {FALSE_ALARM}
    assert f"{len(settled)} created" in first
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert len(rows) == N
    for k, task_id in enumerate(review["ids"]):
        row = rows[str(task_id)]
        assert row["original"] == [lab for lab in LABELS if lab in ORIGINAL.get(k, TRUTH[k])]
        assert row["label"] == [lab for lab in LABELS if lab in TRUTH[k]]  # every planted error corrected
    again = cli(audit_stats, env, "sync-gold", "--project", str(review["source"]), "--to-labelstudio")
    assert f"{len(settled)} unchanged" in again
    by_id = {t.id: t for t in iter_tasks(label_studio.client, review["source"], with_annotations=True)}
    for k in settled:
        gold = [a for a in by_id[review["ids"][k]].annotations if is_gold_annotation(a)]
        assert len(gold) == 1
        chosen = field(field(gold[0], "result")[0], "value")["choices"]
        shown = {"Tech": "Technology"}
        assert sorted(chosen) == sorted(shown.get(lab, lab) for lab in TRUTH[k])
