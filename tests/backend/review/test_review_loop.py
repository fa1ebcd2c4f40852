"""The blind review loop end to end: real Label Studio, real rq worker, real local model.

A source project of 30 labelled items (6 labels flipped) is scored through the queue and a worker,
then ``label-audit review push`` sends the flagged items to two experts, the test plays the experts
(judging each task from its inputs alone, with planted disagreements), ``review reconcile`` builds
the reconciliation project, the experts settle it, and the gold labels are checked against the rule.
The model (SmolLM2-135M) has no real judging signal: the test asserts plumbing, never its verdicts.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.labelstudio.client import iter_tasks
from backend.ledger import Ledger
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW, ReviewStore
from tests.backend.review.blindness import blindness_leaks
from tests.support.labelstudio import unique_email

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

SOURCE_CONFIG = """<View>
  <Header value="Is the generated text supported by the grounding? Read both fully."/>
  <Text name="grounding" value="$grounding"/>
  <Text name="generated_text" value="$generated_text"/>
  <Choices name="label" toName="generated_text" choice="single" showInline="true">
    <Choice value="0" hint="anything contradicts or is unsupported"/>
    <Choice value="1"/>
  </Choices>
  <TextArea name="note" toName="generated_text"/>
</View>"""
FLIPPED = 6
EXTRA = [
    ("The library lends up to five books for three weeks.", "Members may borrow five books at once.", 1),
    ("The library lends up to five books for three weeks.", "Loans last one month.", 0),
    ("The museum is free on the first Sunday of each month.", "Entry costs nothing on some Sundays.", 1),
    ("The museum is free on the first Sunday of each month.", "The museum is always free.", 0),
    ("Tom planted twelve apple trees in April.", "Tom planted trees in spring.", 1),
    ("Tom planted twelve apple trees in April.", "Tom planted twenty pear trees.", 0),
]


def source_items() -> list[dict[str, Any]]:
    """30 items: the bundled sample plus a few more, each with its true label."""
    raw = resources.files("backend").joinpath("data", "sample_factual_consistency.jsonl").read_text("utf-8")
    items = [json.loads(line) for line in raw.splitlines() if line.strip()]
    items = [{"grounding": i["grounding"], "generated_text": i["generated_text"], "truth": str(i["label"])} for i in items]
    items += [{"grounding": g, "generated_text": t, "truth": str(lab)} for g, t, lab in EXTRA]
    return items[:30]


def choice(label: str) -> list[dict[str, Any]]:
    return [{"from_name": "label", "to_name": "generated_text", "type": "choices", "value": {"choices": [label]}}]


@dataclass
class Loop:
    """Everything the tests check, captured while the loop ran once for the module."""

    ls: Any
    db: str
    source: int
    truth: dict[str, str]  # source task id -> true label
    original: dict[str, str]  # source task id -> label in the project (some flipped)
    flagged: list[str] = field(default_factory=list)
    budget: int = 0
    push: dict = field(default_factory=dict)
    push_again: dict = field(default_factory=dict)
    planted: list[str] = field(default_factory=list)
    settled: str = ""
    reconcile: dict = field(default_factory=dict)
    reconcile_again: dict = field(default_factory=dict)
    refused_incomplete: str = ""
    status: dict = field(default_factory=dict)
    gold: list[dict] = field(default_factory=list)


def run_cli(env: dict[str, str], *args: str) -> Any:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in args else result.output


def score_through_worker(ls, project: int, env: dict[str, str], redis_url: str) -> None:
    """The workers' path: enqueue every task, let a real ``rq worker`` score with the local model."""
    from redis import Redis
    from rq import Queue

    from backend.worker.project_audit import start_audit, wait_for
    from backend.worker.ensemble_config import EnsembleConfig
    from tests.backend.worker.rq_process import RQWorkerProcess

    member = {"provider": "local", "model": "smollm2", "base_url": None,
              "prompts": ["fc-premise-hypothesis"], "options": {}}
    config = EnsembleConfig(members=(member,), threshold=0.5, batch_size=10)
    queue = Queue(f"review-e2e-{uuid.uuid4().hex[:8]}", connection=Redis.from_url(redis_url))
    ledger = Ledger(env["DATABASE_URL"])
    import tempfile

    from tests.backend.worker.conftest import members_env

    folder = Path(tempfile.mkdtemp(prefix="review-members-"))
    worker = RQWorkerProcess(redis_url, queue.name, {**env, **members_env(folder, config)}).start()
    try:
        run = start_audit(ls.client, project, queue=queue, ledger=ledger, config=config)
        assert wait_for(ledger, queue, run, timeout=900, poll=2.0), worker.log_tail()
    finally:
        worker.stop()
        queue.delete(delete_jobs=True)


def answer(ls, project_id: int, uid: int, decide) -> None:
    """Annotate every task of a project as user ``uid``; ``decide(task_data)`` picks the label."""
    for task in iter_tasks(ls.client, project_id):
        label = decide(task.data)
        if label is not None:
            ls.client.annotations.create(id=task.id, result=choice(label), completed_by=uid)


@pytest.fixture(scope="module")
def loop(label_studio, redis_url, smollm2_path, tmp_path_factory) -> Loop:
    ls = label_studio
    db = f"sqlite:///{tmp_path_factory.mktemp('review') / 'audit.sqlite'}"
    items = source_items()
    tasks = []
    for k, item in enumerate(items):
        label = item["truth"] if k % 5 else str(1 - int(item["truth"]))  # every 5th label flipped
        tasks.append({"data": {"grounding": item["grounding"], "generated_text": item["generated_text"]},
                      "annotations": [{"result": choice(label)}]})
    source, ids = ls.create_project(SOURCE_CONFIG, tasks, title="crowd-labelled source")
    truth = {str(t): items[k]["truth"] for k, t in enumerate(ids)}
    original = {str(t): tasks[k]["annotations"][0]["result"][0]["value"]["choices"][0] for k, t in enumerate(ids)}
    env = {"DATABASE_URL": db, "LABEL_STUDIO_URL": ls.url, "LABEL_STUDIO_API_KEY": ls.token,
           "LABEL_AUDIT_HOME": str(tmp_path_factory.mktemp("home"))}
    score_through_worker(ls, source, env, redis_url)

    state = Loop(ls=ls, db=db, source=source, truth=truth, original=original)
    state.flagged = [str(r.id) for r in Ledger(db).flagged(str(source))]
    assert len(state.flagged) >= 5, f"the local model flagged only {len(state.flagged)} of 30 items"
    state.budget = len(state.flagged) - 1
    experts = [unique_email("expert-a"), unique_email("expert-b")]
    push_args = ["review", "push", "--project", str(source), "--experts", ",".join(experts),
                 "--budget", str(state.budget), "--allow-same-instance", "--json"]
    state.push = run_cli(env, *push_args)
    state.push_again = run_cli(env, *push_args)

    store = ReviewStore(db)
    uids = {p.expert: p.expert_user_id for p in store.projects(str(source), round=ROUND_REVIEW)}
    by_text = {(i["grounding"], i["generated_text"]): i["truth"] for i in items}
    reviewed = [i.task_id for i in store.items(str(source))]
    state.planted = reviewed[:2]  # expert B gets these two wrong in round 1
    planted_text = {(items[ids.index(int(t))]["grounding"], items[ids.index(int(t))]["generated_text"])
                    for t in state.planted}

    def expert_a(data):
        return by_text[(data["grounding"], data["generated_text"])]

    def expert_b(data):
        key = (data["grounding"], data["generated_text"])
        return str(1 - int(by_text[key])) if key in planted_text else by_text[key]

    a_project, b_project = state.push["projects"][experts[0]], state.push["projects"][experts[1]]
    answer(ls, a_project, uids[experts[0]], expert_a)
    first_b = next(iter(iter_tasks(ls.client, b_project)))
    ls.client.annotations.create(id=first_b.id, result=choice(expert_b(first_b.data)), completed_by=uids[experts[1]])
    refused = CliRunner().invoke(app, ["review", "reconcile", "--project", str(source)], env=env)
    state.refused_incomplete = f"{refused.exit_code}:{refused.output}"
    answer(ls, b_project, uids[experts[1]], lambda d: None if d == first_b.data else expert_b(d))

    state.reconcile = run_cli(env, "review", "reconcile", "--project", str(source), "--json")
    state.reconcile_again = run_cli(env, "review", "reconcile", "--project", str(source), "--json")
    # Round 2: the first planted item is settled to the truth by both; the second stays split.
    state.settled = state.planted[0]
    settled_key = (items[ids.index(int(state.settled))]["grounding"], items[ids.index(int(state.settled))]["generated_text"])
    for email, decide in ((experts[0], expert_a), (experts[1], lambda d: expert_a(d) if (d["grounding"], d["generated_text"]) == settled_key else expert_b(d))):
        answer(ls, state.reconcile["project"], uids[email], decide)
    state.status = run_cli(env, "review", "status", "--project", str(source), "--json")
    state.gold = run_cli(env, "review", "gold", "--project", str(source), "--json")
    return state


def test_push_sends_the_most_confident_suspects_to_each_expert(loop):
    ledger = Ledger(loop.db)
    flagged = ledger.flagged(str(loop.source))
    store = ReviewStore(loop.db)
    reviewed = [i.task_id for i in store.items(str(loop.source))]
    assert reviewed == [str(r.id) for r in flagged][: loop.budget]  # highest confidence first, budget kept
    assert loop.push["items"] == loop.budget and loop.push["added"] == loop.budget and not loop.push["errors"]
    assert set(loop.push["new_tasks"].values()) == {loop.budget}
    assert len(set(loop.push["projects"].values())) == 2
    for email, pid in loop.push["projects"].items():
        listed = list(iter_tasks(loop.ls.client, pid))
        refs = [t.data[REF_FIELD] for t in listed]
        by_ref = {a.ref: a.task_id for a in store.assignments(str(loop.source), round=ROUND_REVIEW, expert=email)}
        assert [by_ref[r] for r in refs] == reviewed  # confidence order in the labelling stream


def test_push_again_is_idempotent(loop):
    again = loop.push_again
    assert again["projects"] == loop.push["projects"]
    assert again["added"] == 0 and set(again["new_tasks"].values()) == {0}
    for pid in loop.push["projects"].values():
        assert len(list(iter_tasks(loop.ls.client, pid))) == loop.budget


def test_reconcile_waits_for_round_one_then_holds_only_disagreements(loop):
    assert loop.refused_incomplete.startswith("2:") and "--partial" in loop.refused_incomplete
    rec = loop.reconcile
    assert rec["disagreements"] == 2 and rec["incomplete"] == 0 and rec["new_tasks"] == 2
    assert rec["agreed"] == loop.budget - 2
    assert loop.reconcile_again["project"] == rec["project"] and loop.reconcile_again["new_tasks"] == 0
    store = ReviewStore(loop.db)
    by_ref = {a.ref: a.task_id for a in store.assignments(str(loop.source), round=ROUND_RECONCILE)}
    listed = list(iter_tasks(loop.ls.client, rec["project"]))
    assert sorted(by_ref[t.data[REF_FIELD]] for t in listed) == sorted(loop.planted)
    for task in listed:
        truth = loop.truth[by_ref[task.data[REF_FIELD]]]
        assert task.data["expert_a"] == f"Expert A: {truth}"
        assert task.data["expert_b"] == f"Expert B: {1 - int(truth)}"


def test_gold_labels_follow_the_rule(loop):
    gold = {g["task_id"]: g for g in loop.gold}
    assert set(gold) == set(loop.truth)
    reviewed = set(ReviewStore(loop.db).items(str(loop.source))[i].task_id for i in range(loop.budget))
    for task_id, g in gold.items():
        if g["prediction"] == loop.original[task_id]:
            assert (g["gold"], g["decided_by"], g["status"]) == (loop.original[task_id], "original", "agreed_with_ensemble")
        elif task_id == loop.settled:
            assert (g["gold"], g["decided_by"], g["status"]) == (loop.truth[task_id], "experts_round2", "reconciled")
        elif task_id in loop.planted:
            assert (g["gold"], g["status"]) == (None, "split_unresolved")
        elif task_id in reviewed:
            assert (g["gold"], g["decided_by"], g["status"]) == (loop.truth[task_id], "experts_round1", "experts_agree")
        else:  # flagged beyond the budget: nobody reviewed it
            assert task_id in loop.flagged and (g["gold"], g["status"]) == (None, "not_reviewed")


def test_status_reports_progress_per_expert_and_round(loop):
    status = loop.status
    rows = {(p["round"], p["name"]): p for p in status["progress"]}
    assert rows[(1, "Expert A")]["answered"] == rows[(1, "Expert A")]["tasks"] == loop.budget
    assert rows[(1, "Expert B")]["answered"] == loop.budget
    assert rows[(2, "Reconciliation")]["tasks"] == 2 and rows[(2, "Reconciliation")]["answered"] == 2
    assert status["round1"] == {"disagreed": 2, "agreed": loop.budget - 2, "incomplete": 0}
    assert sorted(status["round2_answers"].values()) == [2, 2]
    assert status["gold"]["split_unresolved"] == 1 and status["gold"]["not_reviewed"] == 1


def test_status_names_the_members_health_from_the_ledgers_results(loop):
    health = loop.status["member_health"]
    results = Ledger(loop.db).results(str(loop.source))
    assert health["model_version"] == Ledger(loop.db).latest_version(str(loop.source))
    rule = health["rule"]
    for row in health["members"]:  # every figure is what the stored answers give (never the tiny model's verdict)
        answers = [(max(m.probs, key=m.probs.get), r.original, m.raw_mass) for r in results for m in r.members
                   if m.member_id == row["member"] and m.probs and r.original is not None]
        counts = Counter(a for a, _, _ in answers)
        top = row["answer"]
        assert row["n"] == len(answers) and counts[top] == max(counts.values())
        assert row["answer_share"] == pytest.approx(sum(a == top for a, _, _ in answers) / len(answers))
        assert row["original_share"] == pytest.approx(sum(o == top for _, o, _ in answers) / len(answers))
        assert row["mass"] == pytest.approx(sum(m for _, _, m in answers) / len(answers))
        assert row["collapsed"] is (row["answer_share"] >= rule["collapse_share"]
                                    and row["original_share"] <= rule["spread_share"])
        assert row["low_mass"] is (row["mass"] < rule["min_mass"])


def test_expert_labels_before_and_after_reconciliation(loop):
    store = ReviewStore(loop.db)
    before = store.expert_labels(str(loop.source), stage="before")
    after = store.expert_labels(str(loop.source), stage="after")
    assert all(set(v) == {"Expert A", "Expert B"} for v in before.values())
    split_before = [t for t, v in before.items() if len(set(v.values())) > 1]
    split_after = [t for t, v in after.items() if len(set(v.values())) > 1]
    assert sorted(split_before) == sorted(loop.planted)
    assert split_after == [loop.planted[1]]


def test_review_and_reconciliation_projects_are_blind(loop):
    ledger = Ledger(loop.db)
    results = {str(r.id): r for r in ledger.results(str(loop.source))}
    source_inputs = {
        str(t.id): {"grounding": t.data["grounding"], "generated_text": t.data["generated_text"]}
        for t in iter_tasks(loop.ls.client, loop.source)
    }
    secrets_by_task = {tid: (r.original, r.prediction, r.confidence) for tid, r in results.items()}
    store = ReviewStore(loop.db)
    assert len(store.projects(str(loop.source))) == 3
    leaks = blindness_leaks(loop.ls.client, store, str(loop.source), source_inputs=source_inputs,
                            secrets_by_task=secrets_by_task)
    assert leaks == []
    # The checker is not blind itself: a planted prediction, extra column and hint are all reported.
    victim = loop.push["projects"][next(iter(loop.push["projects"]))]
    task = next(iter(iter_tasks(loop.ls.client, victim)))
    src = store_source_id(store, loop.source, task.data[REF_FIELD])
    planted = {**task.data, "original_label": loop.original[src]}
    loop.ls.client.tasks.update(id=str(task.id), data=planted)
    loop.ls.client.predictions.create(task=task.id, result=choice("1"), score=results[src].confidence,
                                      model_version="leak")
    loop.ls.client.annotations.create(id=task.id, result=choice("0"))  # the admin peeks and answers
    rec_task = next(iter(iter_tasks(loop.ls.client, loop.reconcile["project"])))
    rec_src = store_source_id(store, loop.source, rec_task.data[REF_FIELD])
    loop.ls.client.tasks.update(id=str(rec_task.id), data={**rec_task.data, "expert_b": loop.original[rec_src]})
    found = blindness_leaks(loop.ls.client, store, str(loop.source), source_inputs=source_inputs,
                            secrets_by_task=secrets_by_task)
    assert any("annotations by other users" in x for x in found)
    assert any("expert_b" in x and "not an expert answer" in x for x in found)
    assert any("has predictions" in x for x in found)
    assert any("extra data fields ['original_label']" in x for x in found)
    assert any("confidence appears" in x for x in found)


def store_source_id(store: ReviewStore, source: int, ref: str) -> str:
    return next(a.task_id for a in store.assignments(str(source)) if a.ref == ref)
