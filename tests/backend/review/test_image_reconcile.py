"""Reconciliation of an image project reuses the round-1 copy where it lives on the same instance.

Real Label Studio 1.23.2: ``label_studio`` holds the source images (made here, uploaded), ``review_ls``
both experts' round-1 projects and the reconciliation project (one shared instance, as
``--allow-shared-review`` accepts). Each image is copied there once: both experts' tasks and the
reconciliation task point at the same uploaded copy, which the instance serves.
"""

from __future__ import annotations

import pytest

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.uploads import upload_file
from backend.scoring.results import ItemResult
from backend.review.push import push_review
from backend.review.reconcile import reconcile
from backend.review.source import REF_FIELD, load_source
from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW
from tests.backend.review.test_image_review import CONFIG, MARKER, drop_review_projects, make_image, pixels
from tests.support.labelstudio import unique_email

pytestmark = pytest.mark.labelstudio

COLOURS = [(220, 40, 40), (40, 60, 200)]


def _answer(ls, task_id: int, user: int, label: str) -> None:
    ls.client.annotations.create(id=task_id, completed_by=user, result=[
        {"from_name": "animal", "to_name": "image", "type": "choices", "value": {"choices": [label]}}])


def test_reconcile_points_at_the_round1_copy_on_the_same_instance(label_studio, review_ls, record_verdicts):
    project, _ = label_studio.create_project(CONFIG, title="animals reconcile")
    images = [make_image("PNG", c) for c in COLOURS]
    refs = [upload_file(label_studio.client, project, name=f"cat_{MARKER}_{k}.png", data=d, mime="image/png")
            for k, d in enumerate(images)]
    from backend.labelstudio.client import import_tasks

    ids = import_tasks(label_studio.client, project, [{"data": {"image": r}} for r in refs])
    results = [ItemResult(id=str(t), original="cat", prediction="dog", confidence=0.9, probs=None, flagged=True)
               for t in ids]
    ledger, store = record_verdicts(project, results, config=CONFIG, label_field="animal")
    experts = [unique_email("rec-a"), unique_email("rec-b")]
    try:
        _push_and_reconcile(label_studio, review_ls, store, ledger, project, ids, images, experts)
    finally:
        drop_review_projects(review_ls.client, store, project)


def _push_and_reconcile(label_studio, review_ls, store, ledger, project, ids, images, experts) -> None:
    report = push_review(label_studio.client, store, ledger, review_client=review_ls.client, project_id=project,
                         experts=experts)
    assert report.errors == {} and report.new_tasks == {experts[0]: 2, experts[1]: 2}
    round1 = {p.expert: p for p in store.projects(str(project), round=ROUND_REVIEW)}
    source_of = {a.ref: a.task_id for a in store.assignments(str(project))}
    copies: dict[str, set[str]] = {}
    for email in experts:
        for task in iter_tasks(review_ls.client, round1[email].ls_project_id):
            copies.setdefault(source_of[task.data[REF_FIELD]], set()).add(task.data["image"])
            # Expert A says dog on every item, B says dog on the first one only: the second one disagrees.
            label = "dog" if email == experts[0] or source_of[task.data[REF_FIELD]] == str(ids[0]) else "cat"
            _answer(review_ls, task.id, round1[email].expert_user_id, label)
    assert all(len(urls) == 1 for urls in copies.values())  # one copy per image on this instance
    rec = reconcile(label_studio.client, store, load_source(label_studio.client, project),
                    review_client=review_ls.client)
    assert rec.errors == {} and rec.new_tasks == 1
    (rproject,) = store.projects(str(project), round=ROUND_RECONCILE)
    (task,) = list(iter_tasks(review_ls.client, rproject.ls_project_id))
    source_of = {a.ref: a.task_id for a in store.assignments(str(project))}  # round 2 has refs of its own
    assert source_of[task.data[REF_FIELD]] == str(ids[1])
    assert {task.data["image"]} == copies[str(ids[1])]  # the round-1 copy, not a second upload
    assert set(task.data) == {"image", REF_FIELD, "expert_a", "expert_b"}
    served = review_ls.client._client_wrapper.httpx_client.request(task.data["image"].lstrip("/"), method="GET")
    assert served.status_code == 200 and pixels(served.content) == pixels(images[1])
