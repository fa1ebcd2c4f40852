"""The expert's copy of a ranking task: its list shuffled per task, never in the ranking under review (issue 41).

A list stored in the order its annotator ranked it would show the expert that ranking pre-ordered (and an
untouched bucketless ranker saves the order shown: docs/controls.md). The review asks the family for each task's
blind copy (:func:`backend.review.expert_tasks.blind_inputs` -> ``TaskFamily.blind_data``); answers are read
back by id, so what the experts rank, and the gold made of it, does not depend on the order shown.
"""

from __future__ import annotations

import json

from backend.families.ranker_blind import blind_list, entry_ids, numeric_ids
from backend.families.ranking import ranked_ids
from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.expert_tasks import blind_inputs
from tests.backend.families.test_ranker import ITEMS, LLM_RANKER, PLAIN

RANKED = json.dumps({"rank": ["r0", "r1", "r2", "r3"]})  # the list's own (data) order is the ranking


def shown_ids(data: dict) -> list[str]:
    return [e["id"] for e in data["items"]]


def test_a_list_stored_in_ranked_order_reaches_the_expert_shuffled_the_same_on_every_push():
    spec = spec_from_label_config(PLAIN)
    inputs = {"7": {"prompt": "Name a prime.", "items": ITEMS}}
    first = blind_inputs(spec, inputs, seed=0, originals={"7": RANKED})
    again = blind_inputs(spec, inputs, seed=0, originals={"7": RANKED})
    assert shown_ids(first["7"]) != ranked_ids(RANKED, ())  # not the ranking under review
    assert first == again  # a re-push imports the same copy
    assert sorted(first["7"]["items"], key=lambda e: e["id"]) == ITEMS  # the same entries, ids untouched
    assert first["7"]["prompt"] == "Name a prime." and inputs["7"]["items"] == ITEMS  # the source is not changed
    orders = {tuple(shown_ids(blind_inputs(spec, {t: inputs["7"]}, seed=0, originals={})[t]))
              for t in map(str, range(20))}
    assert len(orders) > 5  # per task, not one order for every task
    by_seed = {tuple(shown_ids(blind_inputs(spec, inputs, seed=s, originals={})["7"])) for s in range(10)}
    assert len(by_seed) > 3  # and per review seed


def test_no_shuffle_gives_back_the_ranking_under_review_not_even_of_two_responses():
    plain, buckets = spec_from_label_config(PLAIN), spec_from_label_config(LLM_RANKER)
    cases = [(plain, ITEMS[:2], json.dumps({"rank": ["r0", "r1"]}), ()),
             (plain, ITEMS[:3], json.dumps({"rank": ["r2", "r0", "r1"]}), ()),
             (plain, ITEMS[:3], None, ()),  # no original: the data order is avoided
             (buckets, ITEMS, json.dumps({"relevant_results": ["r2", "r0"], "biased_results": ["r3"], "_": ["r1"]}),
              ("relevant_results", "biased_results"))]
    for spec, items, original, columns in cases:
        avoid = ranked_ids(original, columns) if original else [e["id"] for e in items]
        for task in map(str, range(60)):  # a 2-list shuffles back to its order half the time: rotated
            (data,) = blind_inputs(spec, {task: {"task": "t", "prompt": "p", "items": items}}, seed=3,
                                   originals={task: original}).values()
            assert [i for i in shown_ids(data) if i in avoid] != avoid
            assert sorted(shown_ids(data)) == sorted(e["id"] for e in items)


def test_an_untouched_submit_no_longer_confirms_the_original_and_answers_read_back_by_id():
    """Label Studio saves the shown order of an untouched bucketless ranker: on the blind copy that answer
    disagrees with the original; a ranking the expert makes reads back (and becomes gold) whatever the order."""
    spec = spec_from_label_config(PLAIN)
    fam = spec.task_family
    (data,) = blind_inputs(spec, {"7": {"prompt": "p", "items": ITEMS}}, seed=0, originals={"7": RANKED}).values()
    untouched = [{"from_name": "rank", "to_name": "answers", "type": "ranker",
                  "value": {"ranker": {"rank": shown_ids(data)}}}]
    assert fam.disagrees(spec, fam.read_result(spec, untouched), RANKED)
    answer = json.dumps({"rank": ["r1", "r0", "r2", "r3"]}, separators=(",", ":"))
    assert fam.read_result(spec, fam.write_result(spec, answer)) == answer
    assert fam.gold(spec, original=RANKED, prediction=answer, resolution=answer) == answer


def test_json_text_keeps_its_form_and_other_families_keep_the_data():
    spec = spec_from_label_config(PLAIN)
    (data,) = blind_inputs(spec, {"1": {"prompt": "p", "items": json.dumps(ITEMS)}}, seed=0,
                           originals={"1": RANKED}).values()
    assert isinstance(data["items"], str) and sorted(json.loads(data["items"]), key=lambda e: e["id"]) == ITEMS
    assert [e["id"] for e in json.loads(data["items"])] != ranked_ids(RANKED, ())
    choices = spec_from_label_config('<View><Text name="text" value="$text"/><Choices name="c" toName="text">'
                                     '<Choice value="a"/><Choice value="b"/></Choices></View>')
    inputs = {"1": {"text": "x", "items": ITEMS}}
    assert blind_inputs(choices, inputs, seed=0, originals={"1": "a"}) == inputs


def test_rotation_and_the_ids_label_studio_orders_itself():
    entries = [{"id": i} for i in "abc"]
    for seed in map(str, range(40)):  # the ids to avoid, not the whole list, decide: "b" may sit anywhere
        shown = entry_ids(blind_list(entries, seed=seed, avoid=["a", "c"]))
        assert sorted(shown) == ["a", "b", "c"] and shown.index("a") > shown.index("c")
    assert blind_list([{"id": "a"}], seed="0", avoid=["a"]) == [{"id": "a"}]
    assert numeric_ids(["r0", "2"]) and not numeric_ids(["r0", "02", "-1", "1.5"])
