"""The opt-in "More than one answer may be right" choice: its config, where it is refused, how it is read
back, and the outcome it leads to (no Label Studio here: tests/backend/review/test_ambiguous_choice_ls.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.ambiguous import AMBIGUOUS_TEXT, read_answer
from backend.review.outcome import AMBIGUOUS_ANSWER, GoldStatus, decide_outcome
from backend.review.review_store import ROUND_REVIEW, ReviewProject, ReviewStore
from backend.review.source import SourceProject
from backend.scoring.results import ItemResult

BINARY = """<View>
  <Text name="passage" value="$passage"/>
  <Choices name="verdict" toName="passage"><Choice value="0"/><Choice value="1"/></Choices>
</View>"""
NOMINAL = """<View>
  <Image name="photo" value="$photo"/>
  <Choices name="animal" toName="photo"><Choice value="cat"/><Choice value="dog"/><Choice value="bird"/></Choices>
</View>"""
MULTI = """<View><Text name="t" value="$t"/>
  <Choices name="c" toName="t" choice="multiple"><Choice value="a"/><Choice value="b"/></Choices></View>"""
ORDINAL = """<View><Text name="t" value="$t"/>
  <Choices name="c" toName="t"><Choice value="1"/><Choice value="2"/><Choice value="3"/><Choice value="4"/></Choices>
</View>"""
RATING = """<View><Text name="t" value="$t"/><Rating name="r" toName="t" maxRating="5"/></View>"""
TWO_CONTROLS = """<View><Text name="t" value="$t"/>
  <Choices name="topic" toName="t"><Choice value="x"/><Choice value="y"/></Choices>
  <Choices name="tone" toName="t"><Choice value="calm"/><Choice value="angry"/></Choices></View>"""
EXPERTS = ["a@x.org", "b@x.org"]


def source(config: str, *, label_field: str = "orig", control: str | None = None) -> SourceProject:
    spec = spec_from_label_config(config, label_field=label_field, control=control)
    return SourceProject(project_id=1, label_config=config, spec=spec, label_field=spec.label_field)


def choices_of(config: str) -> list[dict[str, str]]:
    (ctrl,) = [e for e in ET.fromstring(config).iter("Choices")]
    return [dict(c.attrib) for c in ctrl.iter("Choice")]


@pytest.mark.parametrize("config", [BINARY, NOMINAL])
def test_the_choice_follows_the_projects_choices_once_in_both_rounds(config):
    src = source(config)
    for xml in (src.review_config(ambiguous_choice=True), src.reconcile_config(2, ambiguous_choice=True)):
        got = choices_of(xml)
        assert xml.count(AMBIGUOUS_ANSWER) == 1
        assert got[-1]["alias"] == AMBIGUOUS_ANSWER and got[-1]["value"] == AMBIGUOUS_TEXT
        assert "more than one defensible label" in got[-1]["hint"]
        assert [c["alias"] for c in got[:-1]] == list(src.spec.labels)
    assert AMBIGUOUS_ANSWER not in src.review_config() and AMBIGUOUS_ANSWER not in src.reconcile_config(2)
    assert src.review_config() == source(config).review_config(ambiguous_choice=False)


@pytest.mark.parametrize("config, control, why", [
    (MULTI, None, "multilabel"), (ORDINAL, None, "ordinal"), (RATING, None, "not one single-choice"),
    (TWO_CONTROLS, None, "not one single-choice"),
])
def test_refused_where_there_is_no_one_place_for_it(config, control, why):
    src = source(config, control=control)
    with pytest.raises(ValueError, match=why) as err:
        src.review_config(ambiguous_choice=True)
    assert "\n" not in str(err.value) and "--ambiguous-choice" in str(err.value)
    with pytest.raises(ValueError, match=why):
        src.check_ambiguous_choice()


def region(value: str, control: str = "verdict") -> list[dict]:
    return [{"from_name": control, "to_name": "passage", "type": "choices", "value": {"choices": [value]}}]


def test_the_answer_is_read_back_as_the_reserved_token_not_dropped():
    spec = source(BINARY).spec
    assert spec.task_family.read_result(spec, region(AMBIGUOUS_ANSWER)) is None  # why read_answer exists
    assert read_answer(spec, region(AMBIGUOUS_ANSWER)) == AMBIGUOUS_ANSWER
    assert read_answer(spec, region("1")) == "1"
    assert read_answer(spec, region("nonsense")) is None


def result(original: str = "1", prediction: str = "0") -> ItemResult:
    return ItemResult(id="7", original=original, prediction=prediction, confidence=0.9, probs=None, flagged=True)


def test_both_experts_pick_it_no_gold_and_nothing_counts_it_as_gold():
    spec = source(BINARY).spec
    both = decide_outcome(result(), spec, experts=EXPERTS, routed=True,
                          round1={e: AMBIGUOUS_ANSWER for e in EXPERTS})
    assert (both.gold, both.status, both.decided_by) == (None, GoldStatus.EXPERTS_AMBIGUOUS, None)
    assert not both.status.settled and not both.status.by_experts


def test_token_against_a_label_is_a_split_settled_in_round_two():
    spec = source(BINARY).spec
    r1 = {"a@x.org": AMBIGUOUS_ANSWER, "b@x.org": "0"}
    assert decide_outcome(result(), spec, experts=EXPERTS, round1=r1, routed=True).status is GoldStatus.PENDING
    to_token = decide_outcome(result(), spec, experts=EXPERTS, round1=r1,
                              round2={e: AMBIGUOUS_ANSWER for e in EXPERTS})
    assert (to_token.gold, to_token.status) == (None, GoldStatus.EXPERTS_AMBIGUOUS)
    to_label = decide_outcome(result(), spec, experts=EXPERTS, round1=r1, round2={e: "0" for e in EXPERTS})
    assert (to_label.gold, to_label.status) == ("0", GoldStatus.RECONCILED)
    still = decide_outcome(result(), spec, experts=EXPERTS, round1=r1,
                           round2={"a@x.org": AMBIGUOUS_ANSWER, "b@x.org": "0"})
    assert still.status is GoldStatus.SPLIT_UNRESOLVED
    one_of_two = decide_outcome(result(), spec, experts=EXPERTS, round1={"a@x.org": AMBIGUOUS_ANSWER}, routed=True)
    assert one_of_two.status is GoldStatus.PENDING


def test_the_status_and_the_choice_are_stored_and_read_back(tmp_path):
    store = ReviewStore(f"sqlite:///{tmp_path / 'review.sqlite'}")
    assert store.ambiguous_choice("1") is None  # no review yet
    outcome = decide_outcome(result(), source(BINARY).spec, experts=EXPERTS,
                             round1={e: AMBIGUOUS_ANSWER for e in EXPERTS})
    store.set_gold("1", [outcome])
    (back,) = store.gold_labels("1")
    assert back == outcome and GoldStatus.from_stored("experts_ambiguous") is GoldStatus.EXPERTS_AMBIGUOUS
    assert store.gold_counts("1") == {"experts_ambiguous": 1}
    store.add_project(ReviewProject("1", ROUND_REVIEW, "a@x.org", 0, 5, 11, None, True))
    store.add_project(ReviewProject("2", ROUND_REVIEW, "a@x.org", 0, 5, 12))
    assert store.projects("1")[0].ambiguous_choice and store.ambiguous_choice("1") is True
    assert store.ambiguous_choice("2") is False
