"""A ranking project (the gallery's *LLM Ranker* template) reviewed blind, reconciled, turned into gold and synced.

Real Label Studio. The ensemble's verdicts are planted in the ledger as the ranker family stores them (the
local model has no judging signal); everything after that is the product: ``review push`` (the list shuffled
per task, never in the original ranking, and the ranker with its buckets, no annotation, no prediction: nothing
pre-ordered), the experts' rankings read in the measured shape, round 2 on the ranking they split on, gold,
``sync-gold`` twice, and the report's "Rankings" section. Each expert's first review task is screenshotted after
logging in through the form (``artifacts/ranker-review-*.png``).
"""

from __future__ import annotations

import json
import uuid
import xml.etree.ElementTree as ET

import pytest

from backend.cli import app as label_audit
from backend.families.ranking import ranked_ids
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.gold_marks import is_gold_annotation
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.taskshape import field
from backend.ledger import Ledger
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from backend.review.round1_text import SPLIT_MARK
from backend.review.source import REF_FIELD
from backend.scoring.results import ItemResult, MemberResult
from stats_cli.cli import app as audit_stats
from tests.backend.review.test_controls_review_e2e import _screenshots, cli
from tests.support.ls_templates import template_config

pytestmark = [pytest.mark.labelstudio]

ITEMS = [{"id": f"r{k}", "title": f"Answer {k}", "body": body} for k, body in enumerate(
    ("Seven is prime.", "Two is the only even prime.", "Nine is prime."))]


def rank(relevant: list[str], biased: list[str] = ()) -> str:
    columns = {"relevant_results": relevant, "biased_results": list(biased)}
    return json.dumps({k: v for k, v in columns.items() if v}, separators=(",", ":"))


# original, ensemble (planted), expert A, expert B (None: not reviewed), round 2
CASES = [
    (rank(["r0", "r1", "r2"]), rank(["r0", "r1", "r2"]), None, None, None),
    (rank(["r0", "r1"], ["r2"]), rank(["r1", "r0"], ["r2"]), rank(["r1", "r0"], ["r2"]), rank(["r1", "r0"], ["r2"]),
     None),
    (rank(["r2", "r1", "r0"]), rank(["r0", "r1", "r2"]), rank(["r0", "r1", "r2"]), rank(["r0", "r2", "r1"]),
     rank(["r0", "r1", "r2"])),
]


@pytest.fixture(scope="module")
def reviewed(label_studio, tmp_path_factory):
    ls = label_studio
    home = tmp_path_factory.mktemp("ranker-review")
    env = {"DATABASE_URL": f"sqlite:///{home / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(home),
           "LABEL_STUDIO_URL": ls.url, "LABEL_STUDIO_API_KEY": ls.token}
    config = template_config("generative-ai/llm-ranker")
    spec = spec_from_label_config(config)
    family = spec.task_family
    data = [{"task": "Rank the answers.", "prompt": f"Name a prime number ({k}).", "items": ITEMS}
            for k in range(len(CASES))]
    tasks = [{"data": d, "annotations": [{"result": family.write_result(spec, case[0])}]} for d, case in zip(data, CASES)]
    source, ids = ls.create_project(config, tasks, title="ranker review")
    ledger = Ledger(env["DATABASE_URL"])
    ledger.set_project(str(source), label_config=config)
    ledger.record_many(str(source), "planted-v1", [
        ItemResult(id=str(t), original=o, prediction=p, confidence=0.9, probs={"r0-1": 0.9},
                   flagged=family.disagrees(spec, p, o),
                   members=(MemberResult("local:m1/generic-annotator@v1#r0-1", probs={"left": 0.9}),))
        for t, (o, p, *_) in zip(ids, CASES)])
    experts = [f"rka{uuid.uuid4().hex[:5]}@la.test", f"rkb{uuid.uuid4().hex[:5]}@la.test"]
    push = json.loads(cli(label_audit, env, "review", "push", "--project", str(source), "--experts", ",".join(experts),
                          "--allow-same-instance", "--initial-passwords", "--json"))
    projects = {p.expert: p for p in ReviewStore(env["DATABASE_URL"]).projects(str(source), round=ROUND_REVIEW)}
    _screenshots(ls, "ranker-review", experts, projects, push.get("passwords", {}))  # before any answer
    before = {email: list(iter_tasks(ls.client, projects[email].ls_project_id, with_annotations=True))
              for email in experts}
    k_of = {d["prompt"]: k for k, d in enumerate(data)}
    for email, column in zip(experts, (2, 3)):
        for t in iter_tasks(ls.client, projects[email].ls_project_id):
            answer = CASES[k_of[t.data["prompt"]]][column]
            ls.client.annotations.create(id=t.id, result=family.write_result(spec, answer),
                                         completed_by=projects[email].expert_user_id)
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(source), "--json"))
    rec_tasks = list(iter_tasks(ls.client, rec["project"])) if rec.get("project") else []
    for t in rec_tasks:
        for email in experts:
            ls.client.annotations.create(id=t.id, result=family.write_result(spec, CASES[k_of[t.data["prompt"]]][4]),
                                         completed_by=projects[email].expert_user_id)
    return dict(env=env, spec=spec, source=source, ids=ids, experts=experts, projects=projects, rec=rec,
                rec_tasks=rec_tasks, config=config, before=before)


def test_the_expert_sees_the_list_and_ranker_and_nothing_ordered(label_studio, reviewed):
    ls = label_studio
    for email in reviewed["experts"]:
        project = reviewed["projects"][email].ls_project_id
        config = ls.client.projects.get(id=project).label_config
        root = ET.fromstring(config)
        assert [e.get("name") for e in root.iter() if e.get("toName")] == ["rank"]
        assert [b.get("name") for b in root.iter("Bucket")] == ["relevant_results", "biased_results"]
        assert "All Results" not in config and "Task: " not in config
        shown = reviewed["before"][email]  # as pushed, before the expert answered
        assert len(shown) == 2  # the two flagged rankings
        for t in shown:  # no annotation, no prediction, the list's own entries (ids untouched)
            assert set(t.data) == {"task", "prompt", "items", REF_FIELD}
            assert sorted(t.data["items"], key=lambda e: e["id"]) == ITEMS
            assert not t.predictions and not t.annotations


def test_the_list_is_shuffled_per_task_never_in_the_original_ranking(reviewed):
    """Case 1's list is stored in its ranked order (r0, r1 | r2): the expert's copy is not in it, nor is case 2's
    in its (r2 > r1 > r0); both experts' copies of a task, imported apart, are the same (seed and task id), and
    round 2 shows the round-1 order."""
    task_of = {a.ref: a.task_id for a in ReviewStore(reviewed["env"]["DATABASE_URL"]).assignments(
        str(reviewed["source"]))}
    case_of = {str(t): k for k, t in enumerate(reviewed["ids"])}
    buckets = ("relevant_results", "biased_results")
    orders: dict[str, list[list[str]]] = {}
    for email in reviewed["experts"]:
        for t in reviewed["before"][email]:
            task = task_of[t.data[REF_FIELD]]
            shown = [e["id"] for e in t.data["items"]]
            ranked = ranked_ids(CASES[case_of[task]][0], buckets)
            assert [i for i in shown if i in ranked] != ranked
            orders.setdefault(task, []).append(shown)
    assert sorted(case_of[t] for t in orders) == [1, 2]
    assert all(a == b for a, b in orders.values())  # one copy per task, whoever it is pushed to
    (rec,) = reviewed["rec_tasks"]
    assert [e["id"] for e in rec.data["items"]] == orders[task_of[rec.data[REF_FIELD]]][0]


def test_round_two_shows_both_rankings_marked_split(reviewed):
    (task,) = reviewed["rec_tasks"]
    (text,) = [v for f, v in task.data.items() if f.startswith("round1_")]
    assert SPLIT_MARK in text and "Expert A: Relevant Results: r0 > r1 > r2" in text


def test_gold_and_sync_gold_write_the_measured_shape(label_studio, reviewed, tmp_path):
    env, spec, source, ids = reviewed["env"], reviewed["spec"], reviewed["source"], reviewed["ids"]
    gold = {g["task_id"]: g["gold"] for g in json.loads(cli(label_audit, env, "review", "gold", "--project",
                                                            str(source), "--json"))}
    expected = {str(ids[1]): CASES[1][2], str(ids[2]): CASES[2][4]}
    assert {k: gold[k] for k in expected} == expected
    out = tmp_path / "gold.jsonl"
    assert "2 created" in cli(audit_stats, env, "sync-gold", "--project", str(source), "--to-labelstudio",
                              "--out", str(out))
    assert "2 unchanged" in cli(audit_stats, env, "sync-gold", "--project", str(source), "--to-labelstudio",
                                "--out", str(out))
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    by_id = {str(t.id): t for t in iter_tasks(label_studio.client, source, with_annotations=True)}
    for task_id, value in expected.items():
        assert rows[task_id]["gold"] == json.loads(value)
        (ann,) = [a for a in by_id[task_id].annotations if is_gold_annotation(a)]
        (region,) = field(ann, "result")
        assert (region["from_name"], region["to_name"], region["type"]) == ("rank", "answers", "ranker")
        assert spec.task_family.read_result(spec, field(ann, "result")) == value


def test_report_has_the_rankings_section(reviewed, tmp_path):
    out = tmp_path / "report.json"
    cli(audit_stats, reviewed["env"], "report", "--project", str(reviewed["source"]), "--format", "json",
        "--out", str(out), "--no-progress")
    sections = json.loads(out.read_text())["sections"]
    assert not [s["key"] for s in sections if "could not be computed" in (s.get("reason") or "")]
    section = next(s for s in sections if s["key"] == "rankings")
    assert section["status"] == "ok"
    experts = section["values"]["agreement"]["experts, before reconciliation"]
    assert experts["items"] == 2 and experts["mean_pairwise_tau"] == pytest.approx((1 + 1 / 3) / 2)
    assert section["values"]["tau"]["ensemble vs original"]["n"] == 3
