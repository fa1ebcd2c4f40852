"""The task model: the family registry, the multi-label question split and reassembly, set values and gold."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from backend.task.dataset import Item
from backend.scoring.ensemble import describe_flag_rule, disagrees, resolve_threshold
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.results import ErrorInfo, ItemResult, MemberResult
from backend.review.outcome import GoldStatus, decide_outcome
from backend.task import TaskFamily, family_names, get_family, register_family
from backend.families.multilabel import NO, YES
from backend.task.spec import load_spec
from tests.backend.task.templates import LABELS, TOPICS_MULTI, regions

SPEC = spec_from_label_config(TOPICS_MULTI)
FAMILY = SPEC.task_family


def test_the_registry_knows_every_built_in_family_and_refuses_others_by_name():
    assert {"binary", "ordinal", "nominal", "multilabel"} <= set(family_names())
    assert get_family("multilabel") is FAMILY and FAMILY.name == "multilabel"
    with pytest.raises(ValueError, match="family must be one of binary, ordinal, nominal, multilabel"):
        get_family("spans-not-yet")


def test_a_new_family_is_one_registered_class():
    @register_family
    class Echo(TaskFamily):
        name = "echo-test"

    assert get_family("echo-test").name == "echo-test" and "echo-test" in family_names()
    with pytest.raises(ValueError, match="needs a class-level name"):
        register_family(type("Nameless", (TaskFamily,), {}))


def test_single_choice_families_keep_their_thresholds_and_rules():
    fc, likert, relevance = load_spec("factual-consistency"), load_spec("likert"), load_spec("relevance")
    assert (resolve_threshold(fc, None), resolve_threshold(likert, None), resolve_threshold(SPEC, None)) == (0.55, 0.2, 0.55)
    assert disagrees("1", "0", fc) and not disagrees("1", None, fc)
    assert not disagrees("2", "3", likert) and disagrees("1", "3", likert)
    assert disagrees("1", "2", relevance) and not disagrees("2", "3", relevance)  # the 2/3 boundary
    assert describe_flag_rule(fc) == "prediction != original"
    (only,) = fc.task_family.questions(fc)
    assert only.key == "" and only.spec is fc  # one question, the task itself: the plain engine judges it


def test_the_multi_label_template_becomes_a_multilabel_spec_with_its_hints_and_alias():
    assert SPEC.family == "multilabel" and SPEC.labels == LABELS and SPEC.answer_tokens == ()
    assert SPEC.binding.from_name == "topics" and SPEC.binding.shown_for("Tech") == "Technology"
    questions = FAMILY.questions(SPEC)
    assert [q.key for q in questions] == list(LABELS)
    tech = questions[2].spec
    assert tech.family == "binary" and tech.labels == (YES, NO) and tech.negative_label == NO
    assert '"Technology" (software, gadgets, science)' in tech.prompt.question
    assert "Which topics does the text cover?" in tech.prompt.question


@pytest.mark.parametrize(("raw", "value"), [
    (["Sports", "tech"], '["Sports", "Tech"]'), ("Politics", '["Politics"]'), ("Sports,Business", '["Sports", "Business"]'),
    ('["Business", "Sports"]', '["Sports", "Business"]'), ([], "[]"), (["Cooking"], None), (True, None), ({"a": 1}, None),
])
def test_set_values_are_canonical(raw, value):
    assert SPEC.normalize_label(raw) == value


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(LABELS)))
def test_split_and_encode_round_trip_through_the_questions(chosen):
    value = FAMILY.encode_set(SPEC, chosen)
    parts = FAMILY.split(SPEC, value)
    assert FAMILY.encode(SPEC, parts) == value
    assert [FAMILY.question_original(SPEC, q, value) for q in FAMILY.questions(SPEC)] == [
        YES if lab in chosen else NO for lab in LABELS]
    assert FAMILY.read_result(SPEC, FAMILY.write_result(SPEC, value)) == value
    assert FAMILY.export(SPEC, value) == [lab for lab in LABELS if lab in chosen]


def test_an_annotation_without_the_region_chose_no_label():
    assert FAMILY.read_result(SPEC, regions([])) == "[]"
    assert FAMILY.read_result(SPEC, regions(["Tech"])) == '["Tech"]'
    assert FAMILY.read_result(SPEC, regions(["Cooking"])) is None  # unknown: no label, counted as such


def test_the_original_of_several_annotations_is_the_per_label_majority():
    votes = ['["Sports", "Tech"]', '["Sports"]', '["Tech", "Business"]', None]
    assert FAMILY.original_label(SPEC, votes) == '["Sports", "Tech"]'
    assert FAMILY.original_label(SPEC, ['["Sports"]', '["Tech"]']) == "[]"  # a tie leaves the label out
    assert FAMILY.original_label(SPEC, [None]) is None


def _answer(key: str, original: str, p_yes: float, *, threshold: float = 0.5, member: str = "local:m/t@v1"):
    pred = YES if p_yes >= 0.5 else NO
    conf = max(p_yes, 1 - p_yes)
    probs = {YES: p_yes, NO: 1 - p_yes}
    return ItemResult(id="7", original=original, prediction=pred, confidence=conf, probs=probs,
                      flagged=pred != original and conf > threshold, members=(MemberResult(member, probs=probs),))


def test_answers_are_assembled_into_the_item_verdict():
    item = Item(id="7", original='["Sports", "Tech"]', fields={"text": "t"}, data={"text": "t"})
    p_yes = {"Sports": 0.9, "Politics": 0.2, "Tech": 0.3, "Business": 0.95}  # drops Tech, adds Business
    answers = [_answer(q.key, FAMILY.question_original(SPEC, q, item.original), p_yes[q.key])
               for q in FAMILY.questions(SPEC)]
    result = FAMILY.assemble(SPEC, item, answers)
    assert result.prediction == '["Sports", "Business"]' and result.flagged
    assert result.probs == pytest.approx(p_yes)
    assert result.confidence == pytest.approx(0.95)  # the most confident flagged label
    assert [q.id for q in result.questions] == list(LABELS) and [q.flagged for q in result.questions] == [
        False, False, True, True]
    assert {m.member_id for m in result.members} == {f"local:m/t@v1#{lab}" for lab in LABELS}
    again = ItemResult.from_json(json.loads(json.dumps(result.to_json())))
    assert again == result and again.questions == result.questions
    calm = FAMILY.assemble(SPEC, item, [_answer(q.key, FAMILY.question_original(SPEC, q, item.original), p)
                                        for q, p in zip(FAMILY.questions(SPEC), (0.9, 0.2, 0.6, 0.1))])
    assert not calm.flagged and calm.confidence == pytest.approx(0.6)  # the least confident label


def test_a_label_without_verdict_makes_the_item_an_error_that_keeps_retryable():
    item = Item(id="7", original="[]", fields={"text": "t"}, data={})
    answers = [_answer(q.key, NO, 0.2) for q in FAMILY.questions(SPEC)]
    answers[1] = ItemResult(id="7", original=NO, prediction=None, confidence=None, probs=None, flagged=False,
                            error=ErrorInfo("no_member_answered", True, "timeout x1"))
    result = FAMILY.assemble(SPEC, item, answers)
    assert result.prediction is None and result.error.reason == "no_member_answered" and result.error.retryable
    assert "Politics" in result.error.detail


def test_gold_is_per_label_and_round_two_settles_only_the_split_labels():
    original, prediction = '["Sports", "Tech"]', '["Sports", "Business"]'  # ensemble: drop Tech, add Business
    res = ItemResult(id="1", original=original, prediction=prediction, confidence=0.9, probs={}, flagged=True)
    # experts agree on {Politics, Business}: Sports (ensemble agrees) stays from the original, the rest is theirs
    out = decide_outcome(res, SPEC, experts=["a", "b"], round1={"a": '["Politics", "Business"]',
                                                               "b": '["Politics", "Business"]'})
    assert out.status is GoldStatus.EXPERTS_AGREE and out.gold == '["Sports", "Business"]'
    # they split on Business only; round 2 agrees on Business (and tries to change Politics: round 1 holds)
    out = decide_outcome(res, SPEC, experts=["a", "b"], round1={"a": '["Tech", "Business"]', "b": '["Tech"]'},
                         round2={"a": '["Politics", "Business"]', "b": '["Politics", "Business"]'})
    assert out.status is GoldStatus.RECONCILED and out.gold == '["Sports", "Tech", "Business"]'
    assert FAMILY.disputed(SPEC, ['["Tech", "Business"]', '["Tech"]']) == ("Business",)
    sampled = decide_outcome(res, SPEC, experts=["a"], round1={"a": "[]"}, sampled=True)
    assert sampled.gold == "[]"  # a control of the sampling design is settled by the experts whole


def test_a_label_set_too_long_for_the_ledger_is_refused_with_the_reason():
    from backend.task.generic import generic_spec

    long = [f"a rather long label name number {i}" for i in range(12)]
    with pytest.raises(ValueError, match="more than the 255 the audit ledger stores"):
        generic_spec(labels=long, fields=["text"], family="multilabel")
