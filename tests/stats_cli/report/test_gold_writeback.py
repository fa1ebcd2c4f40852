"""`sync-gold --to-labelstudio` against a real Label Studio: the originals stay exactly as they were.

Label Studio marks imported annotations ``ground_truth=true`` and keeps one ground truth per task, so a
gold annotation written as ground truth silently unmarked the originals; and the worker then read the
gold annotation as one more original label. Here every original annotation's result and ground-truth
flag is read back before and after, the worker's task conversion is run on the tasks as Label Studio
lists them afterwards, and an annotation by a real account that shares the gold user's email is left alone.
"""

from __future__ import annotations

from typing import Any

from backend.labelstudio.client import ensure_user, iter_tasks
from backend.labelstudio.gold_marks import GOLD_USER_EMAIL, is_gold_annotation
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.tasks import tasks_to_items
from backend.labelstudio.taskshape import as_dict, user_id_of
from backend.scoring.results import ItemResult
from backend.review.outcome import GoldStatus, ReviewOutcome
from stats_cli.sources.audit_data import AuditData
from stats_cli.sources.gold_export import sync_to_labelstudio

CONFIG = """<View><Text name="g" value="$grounding"/><Text name="t" value="$generated_text"/>
<Choices name="verdict" toName="t"><Choice value="0"/><Choice value="1"/></Choices></View>"""


def _choice(label: str) -> list[dict[str, Any]]:
    return [{"from_name": "verdict", "to_name": "t", "type": "choices", "value": {"choices": [label]}}]


def _annotations(client: Any, project: int) -> dict[int, dict[str, Any]]:
    """Every annotation of the project as Label Studio lists it: id -> {task, by, result, ground_truth}."""
    out = {}
    for task in iter_tasks(client, project, with_annotations=True):
        for ann in as_dict(task).get("annotations") or ():
            out[int(ann["id"])] = {"task": int(task.id), "by": user_id_of(ann.get("completed_by")),
                                   "result": ann.get("result"), "ground_truth": bool(ann.get("ground_truth"))}
    return out


def test_gold_write_back_leaves_every_original_as_it_was(label_studio):
    ls = label_studio
    client = ls.client
    spec = spec_from_label_config(CONFIG, name="factual-consistency")
    # Imported annotations (Label Studio marks them ground truth), one per task, plus a second crowd
    # answer on each task by another annotator: originals 0 and 1, a tie the tie rule settles as "0".
    tasks = [{"data": {"grounding": f"doc {k}", "generated_text": f"claim {k}"}, "annotations": [{"result": _choice("0")}]}
             for k in range(4)]
    project, ids = ls.create_project(CONFIG, tasks)
    crowd_user = ls.ensure_user("crowd-gold-writeback@label-audit.test")
    for task_id in ids:
        client.annotations.create(id=task_id, result=_choice("1"), completed_by=crowd_user)
    # A real account with the gold user's email already annotated task 0 (no marker of ours).
    gold_user = ensure_user(client, GOLD_USER_EMAIL, org_id=ls.org_id)
    foreign = client.annotations.create(id=ids[0], result=_choice("0"), completed_by=gold_user)
    before = _annotations(client, project)
    assert any(a["ground_truth"] for a in before.values())  # the import marked its annotations
    originals_before = tasks_to_items([as_dict(t) for t in iter_tasks(client, project, with_annotations=True)],
                                      spec)

    items = tuple(ItemResult(id=str(t), original="0", prediction="1", confidence=0.9, probs=None, flagged=True)
                  for t in ids)
    outcomes = {str(t): ReviewOutcome(str(t), "0", "1", 0.9, "1", GoldStatus.RECONCILED) for t in ids}
    data = AuditData(project=str(project), spec=spec, items=items, gold_labels=outcomes)
    first = sync_to_labelstudio(client, data, [], label_config=CONFIG)
    listed = [as_dict(t) for t in iter_tasks(client, project, with_annotations=True)]
    again = sync_to_labelstudio(client, data, listed, label_config=CONFIG)
    assert (first.created, again.created, again.updated, again.unchanged) == (4, 0, 0, 4)

    after = _annotations(client, project)
    assert {k: after[k] for k in before} == before  # results and ground-truth flags of every original
    added = {k: a for k, a in after.items() if k not in before}
    assert len(added) == 4 and {a["task"] for a in added.values()} == set(ids)
    assert all(a["by"] == gold_user and not a["ground_truth"] for a in added.values())
    assert after[int(foreign.id)] == before[int(foreign.id)]  # the account's own annotation untouched

    # The worker's conversion reads the same originals as before: the gold annotation is not a crowd label.
    listed = [as_dict(t) for t in iter_tasks(client, project, with_annotations=True)]
    originals_after = tasks_to_items(listed, spec)
    assert [(i.id, i.original) for i in originals_after.items] == [(i.id, i.original) for i in originals_before.items]
    assert sorted(c.annotation_id for c in originals_after.crowd) == sorted(c.annotation_id for c in originals_before.crowd)
    marked = [a for t in listed for a in t["annotations"] if is_gold_annotation(a, gold_user)]
    assert len(marked) == 4 and all(is_gold_annotation(a) for a in marked)
