"""Label Studio task -> Item: majority of annotations, the label-field option, malformed tasks."""

from __future__ import annotations

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.common.labels import majority_label
from backend.labelstudio.tasks import task_to_item, tasks_to_items

CONFIG = """<View><Text name="g" value="$grounding"/><Text name="t" value="$generated_text"/>
<Choices name="verdict" toName="t"><Choice value="0"/><Choice value="1"/></Choices></View>"""
SPEC = spec_from_label_config(CONFIG, name="factual-consistency")


def ann(ann_id: int, label: str, *, user: int = 1, cancelled: bool = False, control: str = "verdict") -> dict:
    return {"id": ann_id, "completed_by": user, "was_cancelled": cancelled, "result": [
        {"from_name": control, "to_name": "t", "type": "choices", "value": {"choices": [label]}}]}


def task(task_id, *annotations, **data) -> dict:
    return {"id": task_id, "data": {"grounding": "doc", "generated_text": "claim", **data},
            "annotations": list(annotations)}


def test_majority_of_annotations_keeps_every_answer():
    item, crowd = task_to_item(task(5, ann(1, "1", user=7), ann(2, "0", user=8), ann(3, "0", user=9)), SPEC)
    assert (item.id, item.original) == ("5", "0")
    assert item.fields == {"grounding": "doc", "generated_text": "claim"}
    assert [(c.annotation_id, c.label, c.annotator) for c in crowd] == [("1", "1", "7"), ("2", "0", "8"),
                                                                        ("3", "0", "9")]


def test_ties_follow_the_one_tie_rule_and_cancelled_ones_do_not_count():
    assert majority_label(["1", "0"], negative="0") == majority_label(["0", "1"], negative="0") == "0"
    assert majority_label(["b", "a"]) == "a" and majority_label(["b", "a"], order=["b", "a"]) == "b"
    assert majority_label([None, None]) is None
    tie, _ = task_to_item(task(5, ann(1, "1", user=7), ann(2, "0", user=8)), SPEC)
    assert tie.original == SPEC.negative_label == "0"  # not whichever answer came first
    item, crowd = task_to_item(task(5, ann(1, "0", cancelled=True), ann(2, "1"), ann(3, "1", control="other")), SPEC)
    assert item.original == "1"
    assert [c.label for c in crowd] == ["1", None]  # another control's answer is not a label of ours


def test_unannotated_task_has_no_original():
    item, crowd = task_to_item(task(5), SPEC)
    assert item.original is None and crowd == []


def test_label_from_a_data_field():
    spec = spec_from_label_config(CONFIG, name="factual-consistency", label_field="gold")
    item, _ = task_to_item(task(5, ann(1, "1"), gold=0), spec, label_field="gold")
    assert item.original == "0"
    with pytest.raises(ValueError, match="bad_label"):
        task_to_item(task(6, gold="maybe"), spec, label_field="gold")


def test_malformed_tasks_become_counted_errors_not_crashes():
    out = tasks_to_items([
        task(1, ann(1, "1")),
        {"id": 2, "data": "not an object"},
        {"data": {"grounding": "no id"}},
        {"id": 4, "data": {"grounding": "doc"}},  # field missing
        {"id": 5, "data": {"grounding": "doc", "generated_text": ["a", "list"]}},
        42,
    ], SPEC)
    assert [i.id for i in out.items] == ["1"]
    errors = {e.id: str(e.error) for e in out.errors}
    assert errors["2"] == "malformed_task: bad_value: the task's data is not an object"
    assert errors["task#2"].startswith("malformed_task: missing_id")
    assert errors["4"].startswith("malformed_task: missing_field")
    assert errors["5"].startswith("malformed_task: bad_value")
    assert errors["task#5"].startswith("malformed_task:")
    assert all(e.prediction is None and not e.flagged for e in out.errors)
    assert len(out.crowd) == 1


def test_sdk_task_objects_are_accepted():
    from label_studio_sdk.types import LseTask  # what the SDK's task listing yields (pydantic)

    sdk_task = LseTask.construct(**task(9, ann(1, "1")))
    out = tasks_to_items([sdk_task], SPEC)
    assert [(i.id, i.original) for i in out.items] == [("9", "1")]


def test_a_malformed_annotation_result_is_no_answer_not_a_crash():
    def broken(ann_id: int, value) -> dict:
        return {"id": ann_id, "completed_by": 1, "was_cancelled": False,
                "result": [{"from_name": "verdict", "to_name": "t", "type": "choices", "value": value}]}

    out = tasks_to_items([
        task(1, broken(1, "not an object"), ann(2, "1")),
        task(2, broken(3, {"choices": {"a": 1}})),
        task(3, broken(4, {"choices": "1"})),
    ], SPEC)
    assert out.errors == []
    assert [(i.id, i.original) for i in out.items] == [("1", "1"), ("2", None), ("3", "1")]
    assert [(c.annotation_id, c.label) for c in out.crowd] == [("1", None), ("2", "1"), ("3", None), ("4", "1")]
