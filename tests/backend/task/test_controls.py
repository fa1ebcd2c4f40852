"""Several controls per item, ratings, numbers and preferences: the control is the unit of a verdict.

The judges here are TEST-ONLY providers (not LLMs, they judge nothing): ``PositionBiasedJudge`` prefers
the letter A by a fixed margin and leans towards the truly better response by a smaller one, so that the
arithmetic of the both-orders average can be checked exactly; ``HashTestProvider`` checks bookkeeping.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

import pytest

from backend.task.dataset import Item
from backend.labelstudio.projectspec import skipped_controls, spec_from_label_config
from backend.providers.base import ClassDistribution
from backend.scoring.engine import EngineConfig
from backend.scoring.members import MemberSpec, build_members
from backend.families.orders import position_flips
from backend.scoring.question_engine import make_engine
from tests.backend.hash_provider import HashTestProvider

SUMMEVAL = """<View>
  <Text name="document" value="$document"/>
  <Text name="summary" value="$summary"/>
  <Header value="Coherence: is the summary well structured?"/>
  <Rating name="coherence" toName="summary" maxRating="5"/>
  <Header value="Consistency"/>
  <Rating name="consistency" toName="summary" maxRating="5"/>
  <Header value="Fluency"/>
  <Choices name="fluency" toName="summary" choice="single-radio">
    <Choice value="1"/><Choice value="2"/><Choice value="3"/><Choice value="4"/><Choice value="5"/>
  </Choices>
  <Header value="Relevance"/>
  <Number name="relevance" toName="summary" min="1" max="5"/>
  <View visibleWhen="choice-selected" whenTagName="fluency" whenChoiceValue="1,2">
    <Choices name="why" toName="summary"><Choice value="grammar"/><Choice value="spelling"/></Choices>
  </View>
  <TextArea name="notes" toName="summary"/>
</View>"""

PAIRWISE = """<View>
  <Text name="prompt" value="$prompt"/>
  <Text name="answer1" value="$answer1"/>
  <Text name="answer2" value="$answer2"/>
  <Pairwise name="pw" toName="answer1,answer2"/>
</View>"""


def test_a_summeval_config_is_four_controls_and_a_conditional_one_each_its_own_task():
    spec = spec_from_label_config(SUMMEVAL)
    assert spec.family == "controls"
    assert [(c.name, c.spec.family, c.title) for c in spec.controls] == [
        ("coherence", "rating", "Coherence: is the summary well structured?"), ("consistency", "rating", "Consistency"),
        ("fluency", "ordinal", "Fluency"), ("relevance", "number", "Relevance"), ("why", "binary", "why")]
    assert spec.controls[-1].when is not None and spec.controls[-1].when.values == ("1", "2")
    assert [s.name for s in skipped_controls(SUMMEVAL)] == ["notes"]
    assert [s.name for s in skipped_controls(SUMMEVAL, control="coherence,fluency")] == [
        "notes", "consistency", "relevance", "why"]
    # A dimension's question is its own header; no control's prompt holds another control's answer.
    params = spec.task_family.prompt_params(spec)
    assert params["coherence:question"] == "Coherence: is the summary well structured?"
    assert params["consistency:question"] == "Consistency"


def test_control_narrows_to_one_control_which_keeps_its_own_spec():
    one = spec_from_label_config(SUMMEVAL, control="consistency")
    assert one.family == "rating" and one.labels == ("1", "2", "3", "4", "5") and one.binding.kind == "rating"
    with pytest.raises(ValueError, match="no control a judge can answer named 'nope'"):
        spec_from_label_config(SUMMEVAL, control="nope")


def test_values_round_trip_per_control_and_hidden_controls_are_dropped():
    spec = spec_from_label_config(SUMMEVAL)
    fam = spec.task_family
    result = [
        {"from_name": "coherence", "to_name": "summary", "type": "rating", "value": {"rating": 4}},
        {"from_name": "consistency", "to_name": "summary", "type": "rating", "value": {"rating": 5}},
        {"from_name": "fluency", "to_name": "summary", "type": "choices", "value": {"choices": ["3"]}},
        {"from_name": "relevance", "to_name": "summary", "type": "number", "value": {"number": 2}},
        {"from_name": "why", "to_name": "summary", "type": "choices", "value": {"choices": ["grammar"]}},
    ]
    value = fam.read_result(spec, result)
    # fluency 3 does not show "why": a stale answer left in the hidden control is not an answer
    assert json.loads(value) == {"coherence": "4", "consistency": "5", "fluency": "3", "relevance": "2"}
    assert fam.read_result(spec, fam.write_result(spec, value)) == value
    shown = fam.normalize_label(spec, {"coherence": 4, "consistency": 5, "fluency": 2, "relevance": 2, "why": "grammar"})
    assert json.loads(shown)["why"] == "grammar"
    assert fam.normalize_label(spec, {"coherence": 9}) is None and fam.normalize_label(spec, {"other": "1"}) is None
    # Per control, each family's own original: the median of the ratings, the majority of a nominal answer.
    annotators = [fam.encode_controls(spec, {"coherence": c, "fluency": "2", "why": w})
                  for c, w in (("1", "grammar"), ("4", "grammar"), ("5", "spelling"))]
    assert json.loads(fam.original_label(spec, annotators)) == {"coherence": "4", "fluency": "2", "why": "grammar"}


def test_review_and_gold_are_per_control():
    spec = spec_from_label_config(SUMMEVAL)
    fam = spec.task_family

    def v(**kw: str) -> str:
        return fam.encode_controls(spec, kw)

    a, b = v(coherence="4", fluency="3"), v(coherence="2", fluency="3")
    assert fam.disputed(spec, [a, b]) == ("coherence",)
    assert json.loads(fam.reconciled(spec, [a, b], v(coherence="3"))) == {"coherence": "3", "fluency": "3"}
    gold = fam.gold(spec, original=v(coherence="5", fluency="3"), prediction=v(coherence="1", fluency="3"),
                    resolution=v(coherence="2", fluency="4"))
    assert json.loads(gold) == {"coherence": "2", "fluency": "3"}  # the ensemble agreed on fluency: the original
    assert fam.export(spec, gold) == {"coherence": "2", "fluency": "3"}


def test_number_scales_too_wide_to_letter_are_refused_with_the_reason():
    xml = "<View><Text name='t' value='$t'/><Number name='n' toName='t' min='0' max='100'/></View>"
    with pytest.raises(ValueError, match="spans 101 values: the judges answer with one letter per value, at most 26"):
        spec_from_label_config(xml)
    wide = SUMMEVAL.replace('max="5"/>\n  <View', 'max="50"/>\n  <View')
    with pytest.raises(ValueError, match="<Number name='relevance'>.*LABEL_AUDIT_CONTROL=coherence,consistency,fluency,why"):
        spec_from_label_config(wide)


class PositionBiasedJudge:
    """TEST-ONLY: P(letter A) = 0.5 + ``bias`` + ``lean`` when A shows the better response, - ``lean`` otherwise."""

    name = "biased"

    def __init__(self, better: Mapping[str, str], *, bias: float = 0.3, lean: float = 0.1):
        self.better, self.bias, self.lean, self.model = dict(better), bias, lean, "biased-1"

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        first = prompt.split("Response 1:", 1)[1]
        a_is_better = any(first.lstrip().split("\n", 2)[1].strip() == text for text in self.better.values())
        p_a = 0.5 + self.bias + (self.lean if a_is_better else -self.lean)
        return ClassDistribution(probs={labels[0]: p_a, labels[1]: 1.0 - p_a}, raw_mass=1.0, method="logits")

    def cache_params(self) -> Mapping[str, Any]:
        return {"kind": "biased"}


def test_both_orders_cancel_a_planted_position_bias_exactly():
    spec = spec_from_label_config(PAIRWISE)
    judge = PositionBiasedJudge({"q1": "The capital is Paris.", "q2": "Water boils at 100 C at sea level."})
    team = build_members([MemberSpec("biased", "b", prompts=("generic-question",))], spec, provider_factory=lambda e: judge)
    items = [Item("q1", "left", {"prompt": "Capital of France?", "answer1": "The capital is Paris.",
                                 "answer2": "It is Lyon."}),
             Item("q2", "left", {"prompt": "When does water boil?", "answer1": "At 50 C.",
                                 "answer2": "Water boils at 100 C at sea level."})]
    results = list(make_engine(spec, team, cache=None, config=EngineConfig(threshold=0.5)).score(items))
    assert [r.prediction for r in results] == ["left", "right"]
    for r in results:
        assert r.confidence == pytest.approx(0.5 + judge.lean)  # the bias of 0.3 is gone, the lean is left
        assert [q.id for q in r.questions] == ["ab", "ba"]
        # asked alone in one order, the judge answers "Response 1" whatever it shows: it flips with the order
        assert {q.prediction for q in r.questions} == {"left", "right"}
        assert position_flips(r, spec.labels) == {team[0].id: True}
    assert not results[0].flagged and results[1].flagged  # q2's original (left) is the worse response


def test_every_control_is_asked_once_per_item_and_conditional_ones_only_where_shown():
    spec = spec_from_label_config(SUMMEVAL)
    provider = HashTestProvider()
    team = build_members([MemberSpec("hash", "h", prompts=("generic-question",))], spec, provider_factory=lambda e: provider)
    fam = spec.task_family
    items = [Item("a", fam.encode_controls(spec, {"coherence": "4", "consistency": "4", "fluency": "4", "relevance": "4"}),
                  {"document": "d1", "summary": "s1"}),
             Item("b", fam.encode_controls(spec, {"coherence": "1", "consistency": "2", "fluency": "1", "relevance": "3",
                                                  "why": "spelling"}), {"document": "d2", "summary": "s2"})]
    engine = make_engine(spec, team, cache=None, config=EngineConfig(concurrency=1))
    results = list(engine.score(items))
    orders = len(fam.control(spec, "why").spec.task_family.questions(fam.control(spec, "why").spec))
    assert orders >= 1  # a two-label control is asked in its option orders (ordinal ones once)
    assert provider.total_calls == 4 + 4 + orders  # item a does not show "why"
    a, b = results
    assert [q.id for q in a.questions] == ["coherence", "consistency", "fluency", "relevance"]
    assert [q.id for q in b.questions] == ["coherence", "consistency", "fluency", "relevance", "why"]
    assert set(json.loads(b.prediction)) == {q.id for q in b.questions}
    assert b.flagged == any(q.flagged for q in b.questions)
    assert {m.member_id.rsplit("#", 1)[1] for m in b.members} == {q.id for q in b.questions}
    for q in b.questions:  # each control's verdict reads as that control alone would
        assert q.original == fam.control_values(spec, b.original)[q.id]
        assert set(q.probs) == set(fam.control(spec, q.id).spec.labels)


def test_ordinal_experts_split_only_beyond_delta_and_agree_on_their_median():
    spec = spec_from_label_config(SUMMEVAL)
    fam = spec.task_family
    rating = fam.control(spec, "coherence").spec

    def v(**kw: str) -> str:
        return fam.encode_controls(spec, kw)

    assert rating.task_family.disputed(rating, ["3", "4"]) == ()  # one grade apart: within the default delta of 1
    assert rating.task_family.disputed(rating, ["2", "4"]) == ("",)
    assert rating.task_family.disputed(rating, ["3", "4"], delta=0) == ("",)
    assert rating.task_family.agreed(rating, ["4", "3"]) == "3"  # the low median, as for several annotators
    a, b = v(coherence="4", consistency="2", why="grammar"), v(coherence="3", consistency="5", why="grammar")
    assert fam.disputed(spec, [a, b]) == ("consistency",)
    settled = json.loads(fam.reconciled(spec, [a, b], v(consistency="4")))
    assert settled == {"coherence": "3", "consistency": "4", "why": "grammar"}
