"""``review push`` / ``reconcile`` mechanics on the real Label Studio, from ledger verdicts written here.

These tests need no model: the verdicts are the input (written through the ledger's API, as the
worker would), and what is checked is what reaches Label Studio and the review store.
"""

from __future__ import annotations

import pytest
from sqlalchemy import update

from backend.labelstudio.client import iter_tasks
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.review import schema
from backend.review.collect import collect_answers
from backend.review.push import push_review
from backend.review.reconcile import RoundIncomplete, reconcile
from backend.review.source import REF_FIELD, load_source
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from tests.support.labelstudio import unique_email

pytestmark = pytest.mark.labelstudio

# The crowd label was imported as a data field and is even displayed in the source project.
CONFIG = """<View>
  <Text name="passage" value="$passage"/>
  <Text name="crowd" value="$gold_label"/>
  <Choices name="verdict" toName="passage"><Choice value="0"/><Choice value="1"/></Choices>
</View>"""


@pytest.fixture()
def scored(label_studio, record_verdicts):
    """A source project of 12 items, all flagged, confidence decreasing with the item number."""
    tasks = [{"passage": f"passage number {k} about rivers", "gold_label": str(k % 2)} for k in range(12)]
    project, ids = label_studio.create_project(CONFIG, tasks)
    # Label Studio checks fields on import, not on update: a task edited later can lose its input.
    label_studio.client.tasks.update(id=str(ids[3]), data={"gold_label": "1"})
    results = [
        ItemResult(id=str(t), original=str(k % 2), prediction=str(1 - k % 2), confidence=0.99 - k / 100,
                   probs=None, flagged=True)
        for k, t in enumerate(ids)
    ]
    results.append(ItemResult(id="999999", original="0", prediction="1", confidence=0.995, probs=None, flagged=True))
    ledger, store = record_verdicts(project, results, config=CONFIG, label_field="gold_label")
    return label_studio, project, ids, ledger, store


def data_by_project(ls, project_id: int) -> list[dict]:
    return [t.data for t in iter_tasks(ls.client, project_id)]


def test_bad_items_are_skipped_with_reasons_and_the_budget_still_filled(scored):
    ls, project, ids, ledger, store = scored
    report = push_review(ls.client, store, ledger, project_id=project, experts=[unique_email("e")], budget=5)
    assert report.errors == {"999999": "source task not found in Label Studio",
                             str(ids[3]): "missing input field(s): passage"}
    assert [i.task_id for i in store.items(str(project))] == [str(ids[k]) for k in (0, 1, 2, 4, 5)]
    (pid,) = report.projects.values()
    data = data_by_project(ls, pid)
    assert [set(d) for d in data] == [{"passage", REF_FIELD}] * 5  # the label field never travels
    assert "$gold_label" not in ls.client.projects.get(id=pid).label_config


def test_shuffled_order_is_seeded_per_expert_and_a_new_expert_gets_everything(scored):
    ls, project, ids, ledger, store = scored
    experts = [unique_email("a"), unique_email("b")]
    report = push_review(ls.client, store, ledger, project_id=project, experts=experts, order="shuffled", seed=7)
    by_ref = {a.ref: a.task_id for a in store.assignments(str(project))}
    orders = {e: [by_ref[d[REF_FIELD]] for d in data_by_project(ls, p)] for e, p in report.projects.items()}
    reviewed = [i.task_id for i in store.items(str(project))]
    assert len(reviewed) == 11
    assert all(sorted(o) == sorted(reviewed) for o in orders.values())
    assert orders[experts[0]] != orders[experts[1]] and orders[experts[0]] != reviewed
    late = unique_email("c")
    again = push_review(ls.client, store, ledger, project_id=project, experts=[*experts, late], order="shuffled", seed=7)
    assert again.new_tasks == {experts[0]: 0, experts[1]: 0, late: 11}
    assert [p.display_name for p in store.projects(str(project))] == ["Expert A", "Expert B", "Expert C"]


def test_an_import_that_died_before_it_was_recorded_is_not_duplicated(scored):
    ls, project, ids, ledger, store = scored
    email = unique_email("e")
    report = push_review(ls.client, store, ledger, project_id=project, experts=[email], budget=4)
    with store.db_engine.begin() as conn:  # as if the process died right after Label Studio answered
        conn.execute(update(schema.assignments).values(ls_task_id=None))
    again = push_review(ls.client, store, ledger, project_id=project, experts=[email], budget=4)
    assert again.new_tasks == {email: 0}
    listed = list(iter_tasks(ls.client, report.projects[email]))
    assert len(listed) == 4
    assert sorted(a.ls_task_id for a in store.assignments(str(project))) == sorted(t.id for t in listed)


def test_partial_reconcile_takes_only_items_every_expert_answered(scored):
    ls, project, ids, ledger, store = scored
    experts = [unique_email("a"), unique_email("b")]
    report = push_review(ls.client, store, ledger, project_id=project, experts=experts, budget=3)
    uids = {p.expert: p.expert_user_id for p in store.projects(str(project), round=ROUND_REVIEW)}
    source = load_source(ls.client, project, label_field="gold_label")
    result = lambda lab: [{"from_name": "verdict", "to_name": "passage", "type": "choices",  # noqa: E731
                           "value": {"choices": [lab]}}]
    a_tasks = list(iter_tasks(ls.client, report.projects[experts[0]]))
    b_tasks = list(iter_tasks(ls.client, report.projects[experts[1]]))
    for task in a_tasks:
        ls.client.annotations.create(id=task.id, result=result("1"), completed_by=uids[experts[0]])
    for task, lab in zip(b_tasks[:2], ("0", "1")):  # B disagrees on the first, agrees on the second
        ls.client.annotations.create(id=task.id, result=result(lab), completed_by=uids[experts[1]])
    with pytest.raises(RoundIncomplete):
        reconcile(ls.client, store, source)
    rec = reconcile(ls.client, store, source, partial=True)
    assert (rec.disagreements, rec.agreed, rec.incomplete, rec.new_tasks) == (1, 1, 1, 1)
    (task,) = iter_tasks(ls.client, rec.project)
    assert (task.data["expert_a"], task.data["expert_b"]) == ("Expert A: 1", "Expert B: 0")
    assert set(task.data) == {"passage", "expert_a", "expert_b", REF_FIELD}
    counts = collect_answers(ls.client, store, source)
    assert counts == {"Expert A": 3, "Expert B": 2, "Reconciliation": 0}


def test_push_refuses_unscored_projects_and_bad_options(label_studio, tmp_path):
    project, _ = label_studio.create_project(CONFIG, [{"passage": "p", "gold_label": "1"}])
    ledger = Ledger(f"sqlite:///{tmp_path / 'audit.sqlite'}")
    store = ReviewStore(db_engine=ledger.db_engine)
    with pytest.raises(ValueError, match="no scores yet"):
        push_review(label_studio.client, store, ledger, project_id=project, experts=["x@y.org"])
    with pytest.raises(ValueError, match="order"):
        push_review(label_studio.client, store, ledger, project_id=project, experts=["x@y.org"], order="random")
    with pytest.raises(ValueError, match="email"):
        push_review(label_studio.client, store, ledger, project_id=project, experts=["nobody"])
