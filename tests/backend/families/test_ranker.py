"""The ranker family on Label Studio's *LLM Ranker* config: spec, result shape, pair questions, Borda ranking, flag.

The result shapes are those measured on Label Studio 1.23.2 (``tests/backend/labelstudio/test_ranker_shape.py``,
docs/controls.md). The judge below is a rule (it knows which response is better and leans to the one shown
first), so the ranking the ensemble must find and the bias both orders must cancel are known exactly.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

import pytest
from scipy.stats import kendalltau

from backend.families.ranker import MAX_RANKED
from backend.families.ranking import kendall_distance, kendall_tau, ranked_ids
from backend.labelstudio.projectspec import spec_from_label_config
from backend.providers.base import ClassDistribution
from backend.scoring.engine import EngineConfig
from backend.scoring.members import MemberSpec, build_members
from backend.scoring.question_engine import make_engine
from backend.task.dataset import item_from_record

# The gallery template's controls (generative-ai/llm-ranker), its style left out.
LLM_RANKER = """<View>
  <View><View><Header value="Task: "/></View><Text name="task" value="$task"/></View>
  <View><View><Header value="Prompt: "/></View><Text name="prompt" value="$prompt"/></View>
  <View>
    <List name="answers" value="$items" title="All Results" />
    <Ranker name="rank" toName="answers">
      <Bucket name="relevant_results" title="Relevant Results" />
      <Bucket name="biased_results" title="Biased Results" />
    </Ranker>
  </View>
</View>"""
PLAIN = """<View><Text name="prompt" value="$prompt"/>
  <List name="answers" value="$items" title="Responses"/><Ranker name="rank" toName="answers"/></View>"""
QUALITY = {"Seven is prime.": 4, "Two is the only even prime.": 3, "Nine is prime.": 2, "Ten is prime.": 1}
ITEMS = [{"id": f"r{k}", "title": f"Model {k}", "body": body} for k, body in enumerate(QUALITY)]


class LeaningJudge:
    """TEST-ONLY: P(option A) = 0.5 + ``bias`` ± ``lean`` as Response 1 is the better one by :data:`QUALITY`."""

    name = "leaning"

    def __init__(self, *, bias: float = 0.3, lean: float = 0.15):
        self.bias, self.lean, self.model, self.calls = bias, lean, "leaning-1", 0

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        self.calls += 1
        shown = [text for text in QUALITY if text in prompt]
        first = min(shown, key=lambda text: prompt.index(text))
        second = next(text for text in shown if text != first)
        p_a = 0.5 + self.bias + (self.lean if QUALITY[first] > QUALITY[second] else -self.lean)
        return ClassDistribution(probs={labels[0]: p_a, labels[1]: 1.0 - p_a}, raw_mass=1.0, method="logits")

    def cache_params(self) -> Mapping[str, Any]:
        return {"kind": "leaning"}


def ranking(**columns: list[str]) -> dict[str, Any]:
    return {"from_name": "rank", "to_name": "answers", "type": "ranker", "value": {"ranker": columns}}


def test_the_gallery_config_is_a_ranker_spec_with_its_buckets():
    spec = spec_from_label_config(LLM_RANKER)
    assert spec.family == "ranker" and spec.binding.from_name == "rank" and spec.binding.kind == "ranker"
    assert list(spec.fields) == ["task", "prompt", "items"]
    assert {k: spec.prompt.titles[k] for k in ("task", "prompt")} == {"task": "Task", "prompt": "Prompt"}
    questions = spec.task_family.questions(spec)
    assert len(questions) == MAX_RANKED * (MAX_RANKED - 1) and all(q.conditional for q in questions)
    assert set(questions[0].spec.fields) == {"task", "prompt", "response_1", "response_2"}  # never the list itself


def test_a_ranking_in_a_several_control_project_is_refused_with_the_way_out():
    xml = LLM_RANKER.replace("</View>\n</View>", '<Rating name="stars" toName="prompt"/></View>\n</View>')
    with pytest.raises(ValueError, match="audited on its own.*LABEL_AUDIT_CONTROL=stars"):
        spec_from_label_config(xml)


def test_read_and_write_keep_the_measured_shape_and_bad_rankings_are_errors():
    spec = spec_from_label_config(LLM_RANKER)
    fam = spec.task_family
    value = fam.read_result(spec, [ranking(_=["r3"], biased_results=["r2"], relevant_results=["r0", "r1"])])
    assert value == '{"relevant_results":["r0","r1"],"biased_results":["r2"],"_":["r3"]}'  # buckets first
    assert ranked_ids(value, ("relevant_results", "biased_results")) == ["r0", "r1", "r2"]  # "_" is not placed
    assert fam.write_result(spec, value) == [ranking(relevant_results=["r0", "r1"], biased_results=["r2"], _=["r3"])]
    assert fam.read_result(spec, []) is None
    for bad in ({"relevant_results": ["r0"], "biased_results": ["r0"]}, {"relevant_results": "r0"}, {}):
        with pytest.raises(ValueError, match="not one of its labels"):
            fam.read_result(spec, [{**ranking(), "value": {"ranker": bad}}])


def test_a_list_field_is_kept_as_json_and_pairs_show_the_ranked_responses_in_both_orders():
    spec = spec_from_label_config(PLAIN)
    fam = spec.task_family
    item = item_from_record({"id": "1", "prompt": "Name a prime.", "items": ITEMS,
                             "label": json.dumps({"rank": ["r2", "r0", "r1"]})}, spec)
    assert json.loads(item.fields["items"]) == ITEMS
    ab, ba = fam.questions(spec)[:2]
    assert (ab.key, ba.key) == ("r0-1.ab", "r0-1.ba")
    asked = fam.question_item(spec, ab, item).fields
    assert (asked["response_1"], asked["response_2"]) == ("Nine is prime.", "Seven is prime.")
    swapped = fam.question_item(spec, ba, item).fields
    assert (swapped["response_1"], swapped["response_2"]) == ("Seven is prime.", "Nine is prime.")
    originals = [fam.question_original(spec, q, item.original) for q in fam.questions(spec)]
    assert originals.count("left") == 3 * 2 and originals.count(None) == len(originals) - 6  # 3 pairs, 2 orders


def _score(spec, records, judge):
    team = build_members([MemberSpec("leaning", "b", prompts=("generic-question",))], spec,
                         provider_factory=lambda e: judge)
    items = [item_from_record(r, spec) for r in records]
    return list(make_engine(spec, team, cache=None, config=EngineConfig(threshold=0.5, concurrency=1)).score(items))


def test_the_ensemble_ranks_by_quality_both_orders_cancel_the_lean_and_swaps_flag():
    spec = spec_from_label_config(PLAIN)
    judge = LeaningJudge()
    good = {"rank": ["r0", "r1", "r2", "r3"]}
    one_swap = {"rank": ["r1", "r0", "r2", "r3"]}
    reversed_ = {"rank": ["r3", "r2", "r1", "r0"]}
    records = [{"id": str(k), "prompt": "Name a prime.", "items": ITEMS, "label": json.dumps(v)}
               for k, v in enumerate((good, one_swap, reversed_))]
    results = _score(spec, records[:1], judge)
    assert judge.calls == 6 * 2  # 4 responses: 6 pairs, each in both orders
    results += _score(spec, records[1:], judge)
    for r in results:
        assert json.loads(r.prediction) == good  # the quality order, whatever the original
        assert len(r.questions) == 6 and all(q.confidence == pytest.approx(0.5 + judge.lean) for q in r.questions)
    assert [r.data["ranker_swapped"] for r in results] == [0, 1, 6]
    assert [r.data["ranker_tau"] for r in results] == [1.0, pytest.approx(4 / 6, abs=1e-4), -1.0]  # (C - D) / 6 pairs
    assert [r.flagged for r in results] == [False, True, True]  # default: any confidently reversed pair flags
    assert [spec.task_family.disagrees(spec, r.prediction, r.original) for r in results] == [False, True, True]


def test_the_lead_allows_some_swaps_with_delta_and_buckets_keep_their_sizes():
    spec = spec_from_label_config(LLM_RANKER)
    judge = LeaningJudge()
    team = build_members([MemberSpec("leaning", "b", prompts=("generic-question",))], spec,
                         provider_factory=lambda e: judge)
    label = {"relevant_results": ["r1", "r0"], "biased_results": ["r3", "r2"]}
    items = [item_from_record({"id": "1", "task": "Rank.", "prompt": "Name a prime.", "items": ITEMS,
                               "label": json.dumps(label)}, spec)]
    for delta, flagged in ((None, True), (2, False), (1, True)):
        (result,) = make_engine(spec, team, cache=None,
                                config=EngineConfig(threshold=0.5, delta=delta, concurrency=1)).score(items)
        assert result.data["ranker_swapped"] == 2 and result.flagged is flagged
        assert json.loads(result.prediction) == {"relevant_results": ["r0", "r1"], "biased_results": ["r2", "r3"]}


def test_an_unranked_or_unknown_id_task_is_an_error_of_its_own_and_asks_nothing():
    spec = spec_from_label_config(PLAIN)
    judge = LeaningJudge()
    records = [{"id": "1", "prompt": "p", "items": ITEMS},
               {"id": "2", "prompt": "p", "items": ITEMS, "label": json.dumps({"rank": ["r0"]})},
               {"id": "3", "prompt": "p", "items": ITEMS, "label": json.dumps({"rank": ["r0", "zz"]})}]
    results = _score(spec, records, judge)
    assert [r.error.reason for r in results] == ["not_ranked", "not_ranked", "bad_label"]
    assert judge.calls == 2  # only task 3's one pair was asked (its unknown id shows as an empty response)


def test_kendall_distance_counts_swapped_pairs_and_tau_matches_scipy():
    assert kendall_distance(["a", "b", "c"], ["a", "b", "c"]) == 0
    assert kendall_distance(["a", "b", "c"], ["c", "b", "a"]) == 3
    assert kendall_distance(["a", "b", "c", "d"], ["b", "a", "d"]) == 1  # c is not in both
    first, second = list("abcdef"), list("badfce")
    expected = kendalltau(range(6), [second.index(i) for i in first]).statistic
    assert kendall_tau(first, second) == pytest.approx(expected)


def test_review_shows_the_list_and_ranker_from_the_spec_with_nothing_ordered():
    spec = spec_from_label_config(LLM_RANKER)
    xml = spec.task_family.review_config(spec, LLM_RANKER)
    assert '<List name="answers" value="$items" title="Responses"/>' in xml
    assert '<Bucket name="relevant_results" title="Relevant Results"/>' in xml
    assert "All Results" not in xml and "Task: " not in xml and "default" not in xml
    two = spec.task_family.review_config(spec, LLM_RANKER, answer_fields=["expert_0", "expert_1"])
    assert '<Text name="expert_1" value="$expert_1"/>' in two
    value = '{"relevant_results":["r1","r0"],"biased_results":["r2"],"_":["r3"]}'
    assert spec.task_family.show_answer(spec, value) == "Relevant Results: r1 > r0; Biased Results: r2; not placed: r3"
