"""Blind review per control: a rating, a preference and a four-dimension project reviewed, reconciled, synced.

Real Label Studio; each project on its template's config (LLM response grading: ``<Rating>``; human
preference for RLHF: ``<Pairwise>``; SummEval: one 1-5 ``<Choices>`` per dimension). The local model has
no judging signal (shapes only, never verdicts), so the ensemble's verdicts are planted in the ledger as
the families store them; everything after that is the product: ``review push`` (every control, nothing
pre-selected), the experts' answers read per control, round 2 on the controls they split on, gold per
control (the original where the ensemble agrees, else the experts'), ``sync-gold`` twice. Each expert's
review task is screenshotted in headless Chromium (``artifacts/controls-*.png``).
"""

from __future__ import annotations

import json
import uuid
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from backend.cli import app as label_audit
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.gold_marks import is_gold_annotation
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.taskshape import field
from backend.ledger import Ledger
from backend.review.round1_text import SETTLED_MARK, SPLIT_MARK
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from backend.scoring.results import ItemResult, MemberResult
from stats_cli.cli import app as audit_stats
from tests.support.browser import ARTIFACTS, headless_chromium
from tests.support.ls_controls import open_task

pytestmark = [pytest.mark.labelstudio]

GRADING = """<View>
  <Text name="prompt" value="$prompt"/>
  <Text name="response" value="$response"/>
  <Header value="Rate the response:"/>
  <Rating name="rating" toName="response" maxRating="5" icon="star" size="medium" defaultValue="3"/>
</View>"""
PREFERENCE = """<View className="root">
  <Text name="prompt" value="$prompt"/>
  <View className="container">
    <View className="item"><Text name="answer1" value="$answer1"/></View>
    <View className="item"><Text name="answer2" value="$answer2"/></View>
  </View>
  <Pairwise name="comparison" toName="answer1,answer2"
            selectionStyle="background-color: #27ae60; box-shadow: 4px 4px 4px #999; color: white;"/>
</View>"""
DIMS = ("coherence", "consistency", "fluency", "relevance")
SUMMEVAL = "<View>\n  <Text name=\"article\" value=\"$article\"/>\n  <Text name=\"summary\" value=\"$summary\"/>\n" + \
    "".join(f'  <Header value="{d.title()} (1 = worst, 5 = best)"/>\n  <Choices name="{d}" toName="summary" '
            f'choice="single-radio" showInLine="true">' + "".join(f'<Choice value="{v}"/>' for v in range(1, 6))
            + "</Choices>\n" for d in DIMS) + "</View>"


def cli(app, env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def composite(spec, values: dict[str, str]) -> str:
    return spec.task_family.encode_controls(spec, values)


def planted(spec, task_id: int, original: str, prediction: str) -> ItemResult:
    """An ensemble verdict as the worker stores it (a composite: one verdict per control)."""
    family = spec.task_family
    if not spec.controls:
        flagged = family.disagrees(spec, prediction, original)
        return ItemResult(id=str(task_id), original=original, prediction=prediction, confidence=0.9,
                          probs={prediction: 0.9}, flagged=flagged,
                          members=(MemberResult("local:m1/generic-annotator@v1", probs={prediction: 0.9}),))
    orig, pred = family.control_values(spec, original), family.control_values(spec, prediction)
    questions = tuple(
        ItemResult(id=c.name, original=orig[c.name], prediction=pred[c.name], confidence=0.9,
                   probs={pred[c.name]: 0.9}, members=(),
                   flagged=c.spec.task_family.disagrees(c.spec, pred[c.name], orig[c.name]))
        for c in spec.controls)
    members = tuple(MemberResult(f"local:m1/generic-annotator@v1#{q.id}", probs=q.probs) for q in questions)
    return ItemResult(id=str(task_id), original=original, prediction=prediction, confidence=0.9,
                      probs={q.id: 0.9 for q in questions}, flagged=any(q.flagged for q in questions),
                      members=members, questions=questions)


def s(*grades: int) -> dict[str, str]:
    return dict(zip(DIMS, map(str, grades)))


# Per project: the items' inputs, the originals, the ensemble's predictions, each expert's round-1 answer
# (None: not reviewed), and the round-2 answer of the split items.
CASES = {
    "rating": dict(config=GRADING, data=[{"prompt": f"Question {k}?", "response": f"Answer number {k}."}
                                         for k in range(4)],
                   original=["5", "2", "4", "1"], prediction=["5", "4", "4", "3"],
                   a=[None, "4", None, "3"], b=[None, "2", None, "3"], round2={1: "4"}),
    "pairwise": dict(config=PREFERENCE, data=[{"prompt": f"Prompt {k}", "answer1": f"First answer {k}",
                                               "answer2": f"Second answer {k}"} for k in range(4)],
                     original=["left", "left", "right", "left"], prediction=["left", "right", "right", "right"],
                     a=[None, "right", None, "left"], b=[None, "right", None, "right"], round2={3: "left"}),
    "summeval": dict(config=SUMMEVAL, data=[{"article": f"Article {k} says the council met on Monday.",
                                             "summary": f"Summary {k}: the council met."} for k in range(4)],
                     original=[s(4, 5, 4, 3), s(2, 5, 4, 3), s(3, 1, 4, 4), s(5, 5, 5, 5)],
                     prediction=[s(4, 5, 4, 3), s(4, 5, 4, 3), s(3, 4, 4, 4), s(5, 5, 2, 5)],
                     a=[None, s(4, 5, 5, 3), s(3, 4, 4, 4), s(5, 5, 5, 5)],
                     b=[None, s(4, 5, 5, 3), s(3, 2, 4, 4), s(5, 5, 5, 5)],
                     round2={2: {"consistency": "4"}}),
}


def value(spec, raw) -> str | None:
    return None if raw is None else composite(spec, raw) if isinstance(raw, dict) else raw


@pytest.fixture(scope="module")
def env(label_studio, tmp_path_factory):
    home = tmp_path_factory.mktemp("controls-review")
    return {"DATABASE_URL": f"sqlite:///{home / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(home),
            "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token}


@pytest.fixture(scope="module", params=list(CASES))
def reviewed(request, label_studio, env):
    name, case = request.param, CASES[request.param]
    ls = label_studio
    spec = spec_from_label_config(case["config"])
    family = spec.task_family
    originals = [value(spec, v) for v in case["original"]]
    tasks = [{"data": d, "annotations": [{"result": family.write_result(spec, o)}]}
             for d, o in zip(case["data"], originals)]
    source, ids = ls.create_project(case["config"], tasks, title=f"controls review {name}")
    ledger = Ledger(env["DATABASE_URL"])
    ledger.set_project(str(source), label_config=case["config"])
    ledger.record_many(str(source), "planted-v1", [planted(spec, t, o, value(spec, p)) for t, o, p in
                                                   zip(ids, originals, case["prediction"])])
    experts = [f"c{name[:2]}a{uuid.uuid4().hex[:5]}@la.test", f"c{name[:2]}b{uuid.uuid4().hex[:5]}@la.test"]
    push = json.loads(cli(label_audit, env, "review", "push", "--project", str(source), "--experts", ",".join(experts),
                          "--allow-same-instance", "--initial-passwords", "--json"))
    projects = {p.expert: p for p in ReviewStore(env["DATABASE_URL"]).projects(str(source), round=ROUND_REVIEW)}
    _screenshots(ls, name, experts, projects, push.get("passwords", {}))  # before answering: nothing selected
    first = next(iter(case["data"][0]))  # the first input (prompt, article) keeps its key in a review task
    k_of = {d[first]: k for k, d in enumerate(case["data"])}
    for email, key in zip(experts, "ab"):
        for t in iter_tasks(ls.client, projects[email].ls_project_id):
            k = k_of[t.data[first]]
            ls.client.annotations.create(id=t.id, result=family.write_result(spec, value(spec, case[key][k])),
                                         completed_by=projects[email].expert_user_id)
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(source), "--json"))
    rec_tasks = list(iter_tasks(ls.client, rec["project"])) if rec.get("project") else []
    if rec_tasks:
        _screenshots(ls, name, experts, projects, push.get("passwords", {}), project_id=rec["project"], who="round2")
    for t in rec_tasks:
        k = next(k for k, d in enumerate(case["data"]) if t.data[first] == d[first])
        answer = case["round2"][k]
        if isinstance(answer, dict):  # round 2 answers only the disputed control
            answer = composite(spec, answer)
        for email in experts:
            ls.client.annotations.create(id=t.id, result=family.write_result(spec, answer),
                                         completed_by=projects[email].expert_user_id)
    return dict(name=name, case=case, spec=spec, source=source, ids=ids, experts=experts, projects=projects,
                rec=rec, rec_tasks=rec_tasks, originals=originals)


def _screenshots(ls, name: str, experts, projects, passwords, *, project_id: int | None = None,
                 who: str = "expert") -> None:
    """Each expert's first task (of their review project, or of ``project_id``) as they see it after logging in."""
    with headless_chromium() as browser:
        for email, letter in zip(experts, "ab"):
            if email not in passwords:
                pytest.fail("review push printed no initial password for a new expert")
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(f"{ls.url}/user/login/")
            page.fill("input[name=email]", email)
            page.fill("input[name=password]", passwords[email])
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            shown = project_id or projects[email].ls_project_id
            task_id = next(iter(iter_tasks(ls.client, shown))).id
            open_task(page, ls.url, shown, task_id)
            page.screenshot(path=str(ARTIFACTS / f"controls-{name}-{who}-{letter}.png"), full_page=True)
            page.close()


def test_the_expert_sees_every_control_and_nothing_selected(label_studio, reviewed):
    ls, spec = label_studio, reviewed["spec"]
    names = [c.name for c in spec.controls] or [spec.binding.from_name]
    for email in reviewed["experts"]:
        config = ls.client.projects.get(id=reviewed["projects"][email].ls_project_id).label_config
        root = ET.fromstring(config)
        shown = [e.get("name") for e in root.iter() if e.get("toName")]
        assert shown == names, config
        assert "defaultValue" not in config and "selected" not in config, config
        keys = set(reviewed["case"]["data"][0])
        if reviewed["name"] == "pairwise":  # the responses under neutral keys: a field name can name the original
            keys = keys - {"answer1", "answer2"} | {"response_1", "response_2"}
        for t in iter_tasks(ls.client, reviewed["projects"][email].ls_project_id, with_annotations=True):
            assert set(t.data) == keys | {REF_FIELD} and not t.predictions, t.data


def test_round_two_shows_each_control_with_the_split_ones_marked(reviewed):
    case, spec = reviewed["case"], reviewed["spec"]
    assert reviewed["rec"]["disagreements"] == len(case["round2"])
    (task,) = reviewed["rec_tasks"]
    shown = {f: v for f, v in task.data.items() if f.startswith("round1_")}
    if not spec.controls:
        (text,) = shown.values()
        assert SPLIT_MARK in text and "Expert A" in text and "Expert B" in text
        return
    assert set(shown) == {f"round1_{d}" for d in DIMS}
    assert SPLIT_MARK in shown["round1_consistency"] and "Expert A: 4" in shown["round1_consistency"]
    assert all(SETTLED_MARK in shown[f"round1_{d}"] for d in DIMS if d != "consistency")


def test_gold_per_control_and_sync_gold_twice(label_studio, env, reviewed, tmp_path):
    case, spec, source = reviewed["case"], reviewed["spec"], reviewed["source"]
    family = spec.task_family
    gold = {g["task_id"]: g for g in json.loads(cli(label_audit, env, "review", "gold", "--project", str(source),
                                                    "--json"))}
    expected = {}
    for k, task_id in enumerate(reviewed["ids"]):
        original, prediction = reviewed["originals"][k], value(spec, case["prediction"][k])
        if case["a"][k] is None:
            continue
        experts = value(spec, case["a"][k]) if case["a"][k] == case["b"][k] else None
        if experts is None:
            answer = case["round2"][k]
            experts = family.reconciled(spec, [value(spec, case["a"][k]), value(spec, case["b"][k])],
                                        value(spec, answer))
        expected[str(task_id)] = family.gold(spec, original=original, prediction=prediction, resolution=experts)
        assert gold[str(task_id)]["gold"] == expected[str(task_id)], (k, gold[str(task_id)])
    if spec.controls:  # per control: fluency of item 1 keeps its original 4 (the ensemble agreed), not the experts' 5
        assert family.control_values(spec, expected[str(reviewed["ids"][1])]) == s(4, 5, 4, 3)
    out = tmp_path / "gold.jsonl"
    first = cli(audit_stats, env, "sync-gold", "--project", str(source), "--to-labelstudio", "--out", str(out))
    assert f"{len(expected)} created" in first
    again = cli(audit_stats, env, "sync-gold", "--project", str(source), "--to-labelstudio", "--out", str(out))
    assert f"{len(expected)} unchanged" in again
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    by_id = {str(t.id): t for t in iter_tasks(label_studio.client, source, with_annotations=True)}
    for task_id, value_ in expected.items():
        assert rows[task_id]["gold"] == family.export(spec, value_)
        (ann,) = [a for a in by_id[task_id].annotations if is_gold_annotation(a)]
        assert family.read_result(spec, field(ann, "result")) == value_


def test_report_json_and_html_per_control(env, reviewed, tmp_path):
    """`audit-stats report` on the reviewed project: each control's figures with its own family's sections."""
    spec, source = reviewed["spec"], reviewed["source"]
    out = tmp_path / "report.json"
    cli(audit_stats, env, "report", "--project", str(source), "--format", "json", "--out", str(out), "--no-progress")
    doc = json.loads(out.read_text())
    sections = doc["sections"]
    names = [c.name for c in spec.controls]
    if names:  # one 'Controls audited' overview, then every section once per control
        assert any(s["key"] == "controls" for s in sections)
        assert {s.get("control") for s in sections if s.get("control")} == set(names)
        ordinal = [s for s in sections if s["key"] == "ordinal"]
        assert {s["control"] for s in ordinal} == set(names) and all(s["status"] != "error" for s in ordinal)
    elif reviewed["name"] == "pairwise":
        (pair,) = [s for s in sections if s["key"] == "pairwise"]
        assert pair["status"] == "ok", pair
    else:  # the rating: ordinal figures beside the nominal ones
        (ordinal,) = [s for s in sections if s["key"] == "ordinal"]
        assert ordinal["status"] == "ok", ordinal
    html = tmp_path / "report.html"
    cli(audit_stats, env, "report", "--project", str(source), "--format", "html", "--out", str(html), "--no-progress")
    text = html.read_text()
    assert env["LABEL_STUDIO_API_KEY"] not in text and "NOT APPLICABLE" not in text
    for name in names:
        assert name in text
