"""A Label Studio task's shape: the same reading whether the SDK gave a pydantic model or a dict."""

from __future__ import annotations

import pytest
from label_studio_sdk.types import LseTask

from backend.labelstudio.gold_marks import gold_result
from backend.labelstudio.tasks import annotation_results, crowd_labels, tasks_to_items
from backend.labelstudio.taskshape import as_dict, field, job_task, live_annotations, user_id_of
from backend.labelstudio.projectspec import spec_from_label_config

CONFIG = """<View><Text name="t" value="$text"/>
<Choices name="verdict" toName="t"><Choice value="0"/><Choice value="1"/></Choices></View>"""
SPEC = spec_from_label_config(CONFIG, name="factual-consistency")


def choice(label: str) -> list[dict]:
    return [{"from_name": "verdict", "to_name": "t", "type": "choices", "value": {"choices": [label]}}]


def listed_task() -> dict:
    return {"id": 7, "data": {"text": "claim"}, "inner_id": 3, "total_annotations": 4, "annotations": [
        {"id": 1, "completed_by": 5, "was_cancelled": False, "result": choice("1"), "lead_time": 2.5},
        {"id": 2, "completed_by": {"id": 6, "email": "b@x.org"}, "was_cancelled": True, "result": choice("0")},
        {"id": 3, "completed_by": 9, "was_cancelled": False, "result": gold_result(control="verdict", to_name="t",
                                                                                   value="0")},
        {"id": 4, "completed_by": "8", "result": choice("0")},
    ]}


def test_a_field_reads_the_same_from_a_dict_and_an_sdk_object():
    sdk = LseTask.construct(**listed_task())
    for task in (listed_task(), sdk):
        assert field(task, "id") == 7 and field(task, "data") == {"text": "claim"}
        assert field(task, "no_such_field", "fallback") == "fallback"


@pytest.mark.parametrize(("value", "expected"), [
    (5, 5), ("8", 8), ({"id": 6}, 6), (LseTask.construct(id=11), 11),
    (None, None), (True, None), ("alice", None), ({"email": "no id"}, None), (2.5, None),
])
def test_user_id_of_reads_ids_and_user_objects_and_never_raises(value, expected):
    assert user_id_of(value) == expected


def test_as_dict_dumps_sdk_tasks_copies_dicts_and_refuses_anything_else():
    assert as_dict(LseTask.construct(**listed_task()))["annotations"][0]["id"] == 1
    original = listed_task()
    copied = as_dict(original)
    assert copied == original and copied is not original
    with pytest.raises(TypeError, match="got int"):
        as_dict(42)


def test_live_annotations_leave_out_the_cancelled_ones_only():
    assert [field(a, "id") for a in live_annotations(listed_task())] == [1, 3, 4]
    assert list(live_annotations({"id": 1})) == []


def test_answers_leave_out_cancelled_and_gold_annotations():
    answers = list(annotation_results(listed_task()))
    assert [(ann_id, user) for ann_id, user, _ in answers] == [(1, 5), (4, 8)]
    assert answers[0][2] == choice("1")
    labels = crowd_labels(listed_task(), SPEC)
    assert [(c.annotation_id, c.annotator, c.label) for c in labels] == [("1", "5", "1"), ("4", "8", "0")]


def test_job_task_keeps_what_scoring_reads_from_a_dict_or_an_sdk_task():
    slim = job_task(listed_task())
    assert slim == job_task(LseTask.construct(**listed_task()))
    assert set(slim) == {"id", "data", "annotations"}
    assert slim["annotations"][0] == {"id": 1, "result": choice("1"), "completed_by": 5, "was_cancelled": False}
    assert slim["annotations"][3]["was_cancelled"] is None
    # what the worker reads from the slim task is what it reads from the whole one
    whole, sent = tasks_to_items([listed_task()], SPEC), tasks_to_items([slim], SPEC)
    assert whole.items == sent.items and whole.crowd == sent.crowd


def test_job_task_passes_malformed_annotations_on_for_the_worker_to_record():
    assert job_task({"id": 1, "data": {}, "annotations": "not a list"})["annotations"] == "not a list"
    assert job_task({"id": 1, "data": {}, "annotations": [7, {"id": 2}]})["annotations"] == [
        {"id": 2, "result": None, "completed_by": None, "was_cancelled": None}]
    assert job_task({"id": 1, "data": {}})["annotations"] == []


def test_a_region_that_is_not_an_object_is_no_answer_not_an_error():
    task = {"id": 3, "data": {"text": "claim"}, "annotations": [
        {"id": 1, "completed_by": 5, "result": ["not a region", *choice("1")]},
        {"id": 2, "completed_by": 6, "result": ["not a region"]},
    ]}
    out = tasks_to_items([task], SPEC)
    assert out.errors == [] and [(c.annotation_id, c.label) for c in out.crowd] == [("1", "1"), ("2", None)]
