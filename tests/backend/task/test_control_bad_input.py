"""Bad input on the rating, number and pairwise controls (issue 40): no crash, no silent drop.

Each test reproduces one case of the issue on the product's own readers: the spec derived from a label
config (what /setup, /predict, the worker and ``score`` all derive) and the conversion of Label Studio tasks
into items (what the worker and the cost estimate run).
"""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest

from backend.families.number import number_labels
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.tasks import crowd_labels, tasks_to_items
from backend.review.outcome import GoldStatus, decide_outcome
from backend.scoring.results import ItemResult
from backend.task.dataset import read_items


def _number(**attrs: str) -> str:
    shown = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return f"<View><Text name='t' value='$t'/><Number name='n' toName='t' {shown}/></View>"


RATING = "<View><Text name='t' value='$t'/><Rating name='r' toName='t' maxRating='5'/></View>"
NUMBER = _number(min="1", max="5")
PAIRWISE = ("<View><Text name='a' value='$a'/><Text name='b' value='$b'/>"
            "<Pairwise name='pw' toName='a,b'/></View>")
DATA = {"t": "some text", "a": "first answer", "b": "second answer"}


# -- 1. a <Number> range is counted before anything is built ---------------------------------------------

@pytest.mark.parametrize("attrs, reason", [
    ({"min": "0", "max": "1000000000000"}, r"spans over 10\^12 values"),  # was MemoryError
    ({"min": "0", "max": "1e300"}, "more than 255 digits"),  # was OverflowError
    ({"min": "0", "max": "1e200"}, r"spans over 10\^200 values"),  # was OverflowError
    ({"min": "0", "max": "1e7"}, "spans 10000001 values"),  # was 403 MB, then this
    ({"min": "-1e308", "max": "1e308", "step": "1e307"}, "more than the 255 characters"),  # was accepted
    ({"min": str(-10 ** 254), "max": str(-10 ** 254 + 1)}, "takes 256 characters"),  # was accepted
    ({"min": "0", "max": "1e999999999999"}, "more than 255 digits"),
    ({"min": "0", "max": "inf"}, "not a finite number"),
    ({"min": "nan", "max": "5"}, "not a finite number"),
    ({"min": "0", "max": "ten"}, "'ten' is not a number"),
    ({"min": "0", "max": "5", "step": "0.5"}, "not an integer"),
    ({"min": "0", "max": "5", "step": "0"}, "not positive"),
    ({"min": "5", "max": "0"}, "fewer than two values"),
])
def test_a_number_range_is_a_value_error_with_its_reason_counted_before_any_value_is_built(attrs, reason):
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ValueError, match=reason):
            number_labels(minimum=attrs["min"], maximum=attrs["max"], step=attrs.get("step"), name="n")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000 and time.perf_counter() - started < 1.0  # nothing the size of the range was built
    with pytest.raises(ValueError, match=reason):  # what every entry point derives
        spec_from_label_config(_number(**attrs))


def test_a_small_number_scale_keeps_its_labels():
    assert number_labels(minimum="0", maximum="10", step="2", name="n") == ("0", "2", "4", "6", "8", "10")
    assert number_labels(minimum="1.0", maximum="1e1", step=None, name="n")[-1] == "10"
    assert spec_from_label_config(_number(min="-2", max="2")).labels == ("-2", "-1", "0", "1", "2")


# -- 2. a control name that would break the question keys is refused in one line ----------------------------

@pytest.mark.parametrize("config", [
    "<View><Text name='t' value='$t'/><Rating name='q/1' toName='t' maxRating='3'/>"
    "<Rating name='q' toName='t'/></View>",
    "<View><Text name='t' value='$t'/><Rating name='q' toName='t'/>"
    "<Rating name='q/1' toName='t' maxRating='3'/></View>",
    "<View><Text name='t' value='$t'/><Number name='n' toName='t' min='1' max='5'/>"
    "<Choices name='x/y' toName='t'><Choice value='a'/><Choice value='b'/></Choices></View>",
])
def test_a_control_name_holding_the_key_separator_is_refused_beside_other_controls(config):
    with pytest.raises(ValueError, match=r"cannot hold '/'.*LABEL_AUDIT_CONTROL=") as refused:
        spec_from_label_config(config)
    assert "\n" not in str(refused.value)
    alone = spec_from_label_config(config, control="q/1" if "q/1" in config else "x/y")  # alone it has no keys
    assert alone.family != "controls" and alone.binding.from_name in ("q/1", "x/y")


# -- 3. an invalid answer from Label Studio is that item's counted bad_label ---------------------------------

def _task(task_id: int, *regions: dict, annotations: int = 1) -> dict:
    anns = [{"id": task_id * 10 + i, "completed_by": i + 1, "result": list(regions)} for i in range(annotations)]
    return {"id": task_id, "data": DATA, "annotations": anns}


def _rating(value, name: str = "r") -> dict:
    return {"from_name": name, "to_name": "t", "type": "rating", "value": {"rating": value}}


def _num(value) -> dict:
    return {"from_name": "n", "to_name": "t", "type": "number", "value": {"number": value}}


def _pw(value) -> dict:
    return {"from_name": "pw", "to_name": "pw", "type": "pairwise", "value": {"selected": value}}


BAD_ANSWERS = [
    (RATING, _rating(0)), (RATING, _rating(6)), (RATING, _rating(4.5)), (RATING, _rating(None)),
    (RATING, _rating(True)), (RATING, _rating("four")), (RATING, _rating(10 ** 5000)),
    (NUMBER, _num(0)), (NUMBER, _num(9)), (NUMBER, _num(2.5)), (NUMBER, _num("seven")), (NUMBER, _num(None)),
    (PAIRWISE, _pw("both")), (PAIRWISE, _pw("tie")), (PAIRWISE, _pw(None)), (PAIRWISE, _pw(["left"])),
]


@pytest.mark.parametrize("config, region", BAD_ANSWERS)
def test_an_invalid_answer_is_the_items_bad_label_as_from_a_file(config, region, tmp_path):
    spec = spec_from_label_config(config)
    converted = tasks_to_items([_task(1, region), _task(2, region, annotations=2)], spec)
    assert converted.items == []
    assert [(e.id, e.error.reason) for e in converted.errors] == [("1", "bad_label"), ("2", "bad_label")]
    detail = converted.errors[0].error.detail
    assert detail.startswith("annotation 10: control ") and "not one of its labels" in detail
    assert "(and 1 more)" in converted.errors[1].error.detail  # both annotations are invalid: both counted
    # The same value in a `score` file is the same counted reason.
    raw = region["value"].get("rating", region["value"].get("number", region["value"].get("selected")))
    if not isinstance(raw, int) or abs(raw) < 10 ** 100:  # (JSON cannot carry the 5000-digit one to a file)
        path = tmp_path / "items.jsonl"
        path.write_text(json.dumps({"id": "1", **DATA, "label": raw}) + "\n", "utf-8")
        (entry,) = read_items(path, spec)
        if raw is not None:
            assert entry.reason == "bad_label"


def test_one_invalid_annotation_among_valid_ones_is_still_the_items_error_and_the_report_reader_keeps_going():
    spec = spec_from_label_config(RATING)
    task = {"id": 3, "data": DATA, "annotations": [
        {"id": 31, "completed_by": 1, "result": [_rating(4)]}, {"id": 32, "completed_by": 2, "result": [_rating(6)]}]}
    (error,) = tasks_to_items([task], spec).errors
    assert error.error.reason == "bad_label" and error.error.detail.startswith("annotation 32: control 'r' answers rating=6")
    assert [c.label for c in crowd_labels(task, spec)] == ["4", None]  # the report's crowd reader never raises


def test_several_regions_for_one_control_give_the_valid_one_or_an_error_when_they_disagree():
    spec = spec_from_label_config(RATING)
    valid_second = tasks_to_items([_task(1, _rating(6), _rating(4))], spec)
    assert [it.original for it in valid_second.items] == ["4"] and valid_second.errors == []
    same = tasks_to_items([_task(2, _rating(4), _rating(4.0))], spec)
    assert [it.original for it in same.items] == ["4"]
    disagree = tasks_to_items([_task(3, _rating(2), _rating(4))], spec)
    assert disagree.items == [] and disagree.errors[0].error.reason == "bad_label"
    assert "2 different answers in one annotation (2, 4)" in disagree.errors[0].error.detail
    pairs = tasks_to_items([_task(4, _pw("tie"), _pw("right"))], spec_from_label_config(PAIRWISE))
    assert [it.original for it in pairs.items] == ["right"]


CONDITIONAL = """<View><Text name='t' value='$t'/>
  <Choices name='ok' toName='t'><Choice value='yes'/><Choice value='no'/></Choices>
  <View visibleWhen='choice-selected' whenTagName='ok' whenChoiceValue='no'>
    <Rating name='sev' toName='t' maxRating='5'/>
  </View>
</View>"""


def _ok(value: str) -> dict:
    return {"from_name": "ok", "to_name": "t", "type": "choices", "value": {"choices": [value]}}


def test_an_invalid_answer_counts_only_in_a_control_the_other_answers_show():
    spec = spec_from_label_config(CONDITIONAL)
    hidden = tasks_to_items([_task(1, _ok("yes"), _rating(9, "sev"))], spec)  # stale, hidden: no answer
    assert [json.loads(it.original) for it in hidden.items] == [{"ok": "yes"}]
    shown = tasks_to_items([_task(2, _ok("no"), _rating(9, "sev"))], spec)
    assert shown.items == [] and shown.errors[0].error.reason == "bad_label"
    assert "control 'sev' answers rating=9" in shown.errors[0].error.detail


# -- 4. gold drops a control the gold answers hide -------------------------------------------------------------

def test_gold_drops_a_control_the_experts_answer_hides_and_sync_gold_writes_no_unconfirmed_rating():
    spec = spec_from_label_config(CONDITIONAL)
    fam = spec.task_family
    original = fam.encode_controls(spec, {"ok": "no", "sev": "2"})
    prediction = fam.encode_controls(spec, {"ok": "yes", "sev": "2"})
    experts = fam.encode_controls(spec, {"ok": "yes"})  # sev was hidden in their view
    assert json.loads(fam.gold(spec, original=original, prediction=prediction, resolution=experts)) == {"ok": "yes"}
    result = ItemResult(id="1", original=original, prediction=prediction, confidence=0.9,
                        probs={"ok": 0.9, "sev": 0.6}, flagged=True)
    outcome = decide_outcome(result, spec, experts=["a", "b"], round1={"a": experts, "b": experts}, routed=True)
    assert outcome.status is GoldStatus.EXPERTS_AGREE and json.loads(outcome.gold) == {"ok": "yes"}
    assert [r["from_name"] for r in fam.write_result(spec, outcome.gold)] == ["ok"]  # what sync-gold writes
    flagged_ok = ItemResult(id="1", original=original, prediction=prediction, confidence=0.9, probs={"ok": 0.9},
                            flagged=True, questions=(
                                ItemResult(id="ok", original="no", prediction="yes", confidence=0.9, probs=None,
                                           flagged=True),))
    assert json.loads(fam.flipped(spec, flagged_ok, 0.5)) == {"ok": "yes"}  # sync-gold --mode flip


def test_a_score_file_label_no_float_holds_is_a_bad_label_not_a_crash(tmp_path):
    spec = spec_from_label_config(RATING)
    path = tmp_path / "items.jsonl"
    rows = ['{"id": "1", "t": "x", "label": 1' + "0" * 400 + "}", '{"id": "2", "t": "x", "label": 1' + "0" * 5000 + "}",
            '{"id": "3", "t": "x", "label": 3}']
    path.write_text("\n".join(rows) + "\n", "utf-8")
    first, second, third = read_items(path, spec)  # was OverflowError out of the reader: the whole run stopped
    assert (first.reason, second.reason, third.original) == ("bad_label", "invalid_json", "3")  # (JSON's own limit)
    assert first.detail.startswith("label 1000") and "0... is not in the label set" in first.detail
    assert len(first.detail) < 150  # the value is cut, not copied whole into the summary
