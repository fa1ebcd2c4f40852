"""A Label Studio NER project reviewed blind, reconciled, reported and synced, with only the members set.

Real Label Studio. The embedded model has no judging signal, so the verdicts are planted in the
ledger, one flagged error of each kind (wrong type, missed, boundary, not an entity) and one agreed
item; the review chain is what is checked: the experts' projects hold the text and the entity types
only (no original span, proposal or score); each expert marks the entities themselves; their spans
answer the questions by offsets; round 2 shows both experts' spans where they split; gold per span
is the original where the ensemble agreed, else the experts'; sync-gold writes the corrected spans as
marked gold annotations (offsets selecting their text) and to JSONL with character offsets.
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
from backend.scoring.results import ItemResult
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from backend.spans.engine import predicted_from_value
from backend.spans.gold_spans import asked_questions
from backend.spans.lsresult import read_spans, span_region
from backend.spans.model import Span
from backend.spans.value import encode_spans
from stats_cli.cli import app as audit_stats
from tests.backend.spans.test_spans_e2e import NER, place

pytestmark = [pytest.mark.labelstudio]
TYPES = ("PER", "LOC", "ORG")


def spans(text: str, marks) -> list[Span]:
    return [Span(*place(text, w, n), lab, w) for w, n, lab in marks]


# text, truth, planted original, prediction [(word, nth, label, confidence, kind)]
CASES = [
    ("Meet 😀 Anna in 東京 today", [("Anna", 0, "PER"), ("東京", 0, "LOC")], [("Anna", 0, "PER"), ("東京", 0, "PER")],
     [("Anna", 0, "PER", 0.8, ""), ("東京", 0, "LOC", 0.9, "wrong_type")]),
    ("Ann met Ann and 👍🏽 Zoe\u0308 in Paris", [("Ann", 0, "PER"), ("Ann", 1, "PER"), ("Zoe\u0308", 0, "PER"),
                                               ("Paris", 0, "LOC")],
     [("Ann", 0, "PER"), ("Zoe\u0308", 0, "PER"), ("Paris", 0, "LOC")],
     [("Ann", 0, "PER", 0.7, ""), ("Ann", 1, "PER", 0.85, "missed"), ("Zoe\u0308", 0, "PER", 0.7, ""),
      ("Paris", 0, "LOC", 0.8, "")]),
    ("Apple hired Tim Cook in Cupertino", [("Apple", 0, "ORG"), ("Tim Cook", 0, "PER"), ("Cupertino", 0, "LOC")],
     [("Apple", 0, "ORG"), ("Tim", 0, "PER"), ("Cupertino", 0, "LOC")],
     [("Apple", 0, "ORG", 0.8, ""), ("Tim Cook", 0, "PER", 0.95, "boundary"), ("Cupertino", 0, "LOC", 0.6, "")]),
    ("The weather in Oslo is nice", [("Oslo", 0, "LOC")], [("weather", 0, "PER"), ("Oslo", 0, "LOC")],
     [("weather", 0, "PER", 0.7, "not_an_entity"), ("Oslo", 0, "LOC", 0.9, "")]),
    ("Bob likes Rome", [("Bob", 0, "PER"), ("Rome", 0, "LOC")], [("Bob", 0, "PER"), ("Rome", 0, "LOC")],
     [("Bob", 0, "PER", 0.9, ""), ("Rome", 0, "LOC", 0.9, "")]),
]
SPLIT = 2  # expert B marks only "Tim": the experts split on the boundary


def cli(app, env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def verdict(task_id: int, text: str, original, predicted) -> ItemResult:
    pred = [Span(*place(text, w, n), lab, w) for w, n, lab, _, _ in predicted]
    extras = [{"c": c, "k": k} for _, _, _, c, k in predicted]
    flagged = [c for *_, c, k in predicted if k]
    prediction = encode_spans(pred, extras=extras)
    asked, flagged_ids = asked_questions(spans(text, original), predicted_from_value(prediction))
    parts = tuple(ItemResult(id=q.qid, original=q.original, prediction=q.original, confidence=0.9, probs={},
                             flagged=q.qid in flagged_ids) for q in asked)
    return ItemResult(id=str(task_id), original=encode_spans(spans(text, original)), prediction=prediction,
                      confidence=max(flagged) if flagged else 0.9, probs={}, flagged=bool(flagged), questions=parts)


def annotate(ls, project: int, uid: int, marks_for) -> None:
    for task in iter_tasks(ls.client, project):
        text = task.data["text"]
        result = [span_region(s, control="label", to_name="text") for s in marks_for(text)]
        ls.client.annotations.create(id=task.id, result=result, completed_by=uid)


@pytest.fixture(scope="module")
def env(label_studio, tmp_path_factory):
    home = tmp_path_factory.mktemp("spans-review")
    return {"DATABASE_URL": f"sqlite:///{home / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(home),
            "LABEL_AUDIT_MEMBERS": "local:smollm2", "LABEL_STUDIO_URL": label_studio.url,
            "LABEL_STUDIO_API_KEY": label_studio.token}


@pytest.fixture(scope="module")
def review(label_studio, env):
    ls = label_studio
    tasks = [{"data": {"text": t}, "annotations": [{"result": [span_region(s, control="label", to_name="text")
                                                              for s in spans(t, orig)]}]} for t, _, orig, _ in CASES]
    source, ids = ls.create_project(NER, tasks, title="spans review e2e")
    Ledger(env["DATABASE_URL"]).record_many(str(source), "planted-v1", [
        verdict(tid, t, orig, pred) for tid, (t, _, orig, pred) in zip(ids, CASES)])
    experts = [f"sa{uuid.uuid4().hex[:6]}@la.test", f"sb{uuid.uuid4().hex[:6]}@la.test"]
    cli(label_audit, env, "review", "push", "--project", str(source), "--experts", ",".join(experts),
        "--allow-same-instance", "--json")
    projects = {p.expert: p for p in ReviewStore(env["DATABASE_URL"]).projects(str(source), round=ROUND_REVIEW)}
    truth = {t: spans(t, tr) for t, tr, _, _ in CASES}
    annotate(ls, projects[experts[0]].ls_project_id, projects[experts[0]].expert_user_id, lambda t: truth[t])
    split_text = CASES[SPLIT][0]
    annotate(ls, projects[experts[1]].ls_project_id, projects[experts[1]].expert_user_id,
             lambda t: spans(t, CASES[SPLIT][2]) if t == split_text else truth[t])
    rec = json.loads(cli(label_audit, env, "review", "reconcile", "--project", str(source), "--json"))
    rec_tasks = list(iter_tasks(ls.client, rec["project"]))
    for email in experts:
        annotate(ls, rec["project"], projects[email].expert_user_id, lambda t: truth[t])
    return {"source": source, "ids": ids, "projects": projects, "experts": experts, "rec": rec,
            "rec_tasks": rec_tasks, "truth": truth}


def test_blind_projects_hold_the_text_and_entity_types_only(label_studio, review):
    ls = label_studio
    for email in review["experts"]:
        project = ls.client.projects.get(id=review["projects"][email].ls_project_id)
        assert "<Labels" in project.label_config and "hint" not in project.label_config
        texts = []
        for t in iter_tasks(ls.client, project.id, with_annotations=True):
            assert set(t.data) <= {"text", REF_FIELD}, t.data
            assert not t.predictions
            texts.append(t.data["text"])
        assert sorted(texts) == sorted(c[0] for c in CASES[:4])  # the flagged items only
    assert review["rec"]["disagreements"] == 1
    (task,) = review["rec_tasks"]
    shown = " | ".join(str(v) for v in task.data.values())
    assert "«Tim Cook» PER" in shown and "«Tim» PER" in shown


def test_gold_report_and_sync(label_studio, env, review, tmp_path):
    out = tmp_path / "gold.jsonl"
    first = cli(audit_stats, env, "sync-gold", "--project", str(review["source"]), "--to-labelstudio", "--out", str(out))
    assert "4 created" in first
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    for task_id, (text, *_rest) in zip(review["ids"], CASES):
        gold = [Span.from_dict(s) for s in rows[str(task_id)]["label"]]
        assert sorted(gold) == sorted(review["truth"][text])  # every planted error corrected, in code points
        assert all(text[s.start:s.end] == s.text for s in gold)
    by_id = {t.id: t for t in iter_tasks(label_studio.client, review["source"], with_annotations=True)}
    for task_id, (text, *_rest) in list(zip(review["ids"], CASES))[:4]:
        (gold,) = [a for a in by_id[task_id].annotations if is_gold_annotation(a)]
        read = read_spans(field(gold, "result"), text, control="label", labels=TYPES)
        assert read.problems == () and sorted(read.spans) == sorted(review["truth"][text])
    again = cli(audit_stats, env, "sync-gold", "--project", str(review["source"]), "--to-labelstudio")
    assert "4 unchanged" in again
    report = tmp_path / "report.json"
    cli(audit_stats, env, "report", "--project", str(review["source"]), "--format", "json", "--out", str(report),
        "--no-progress")
    doc = json.loads(report.read_text())
    assert doc["meta"]["family"] == "spans"
    section = {s["key"]: s for s in doc["sections"]}["spans"]
    assert section["status"] == "ok", section
    errors = section["values"]["errors"]
    # one planted error of each kind, each flagged and confirmed by the experts' gold
    assert {k: errors[k]["confirmed"] for k in errors} == {"wrong_type": 1, "not_an_entity": 1, "boundary": 1,
                                                           "missed": 1}
    # the unflagged type questions were never sampled: PENDING; every missed/boundary question was flagged and
    # reviewed, so their design is complete (one stratum, all of it seen)
    assert errors["wrong_type"]["rate"] is None and errors["not_an_entity"]["rate"] is None
    assert errors["missed"]["rate"]["rate"] == 1.0 and errors["boundary"]["rate"]["sample"] == 1
    experts = section["values"]["agreement"]["experts, round 1"]
    assert experts["pairs"] == 4 and experts["spans"] == 20  # 4 items reviewed by 2 experts, 10 spans each
    assert experts["exact_f1"] == pytest.approx(18 / 20) and experts["overlap_f1"] == 1.0  # split on one boundary
    assert section["values"]["asked"] == {"type": 12, "missed": 1, "boundary": 1}
    assert env["LABEL_STUDIO_API_KEY"] not in report.read_text()


def test_sync_gold_writes_conll_for_training_sets(env, review, tmp_path):
    path = tmp_path / "gold.conll"
    said = cli(audit_stats, env, "sync-gold", "--project", str(review["source"]), "--conll", str(path))
    assert "CoNLL/IOB2 written" in said
    blocks = path.read_text("utf-8").strip().split("\n\n")
    assert len(blocks) == len(CASES)
    tim = next(b for b in blocks if b.startswith("Apple"))
    assert "Tim\tB-PER\nCook\tI-PER" in tim  # the corrected boundary
    first = next(b for b in blocks if b.startswith("Meet"))
    assert "東\tB-LOC\n京\tI-LOC" in first and "😀\tO" in first
