"""Original label of an ordinal task with several annotations: the median (Nahum App. A, SummEval), one tie rule.

The Label Studio backend (the original the ensemble is judged against) and the report's crowd section
must give the same label for the same annotations.
"""

from __future__ import annotations

from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.tasks import task_to_item
from backend.scoring.results import ItemResult
from stats_cli.report.inputs import AuditData
from stats_cli.report.sections.crowd import crowd_labels

CONFIG = """<View><Text name="doc" value="$document"/><Text name="s" value="$summary"/>
<Choices name="score" toName="s"><Choice value="1"/><Choice value="2"/><Choice value="3"/><Choice value="4"/>
<Choice value="5"/></Choices></View>"""
SPEC = spec_from_label_config(CONFIG, name="likert")

# ratings -> the median the tie rule gives (two different middles: the lower, first in class order)
CASES = {
    "odd": (["1", "1", "4", "5", "5"], "4"),  # the majority would say 1 (a 1/5 tie going to the negative label)
    "even": (["2", "3", "4", "5"], "3"),  # midpoint 3.5 is not a label; the lower middle is
    "pair": (["2", "4"], "2"),
    "agree": (["3", "3"], "3"),
}


def _task(task_id: int, ratings: list[str]) -> dict:
    return {"id": task_id, "data": {"document": "d", "summary": "s"}, "annotations": [
        {"id": 100 * task_id + k, "completed_by": k + 1, "result": [
            {"from_name": "score", "to_name": "s", "type": "choices", "value": {"choices": [r]}}]}
        for k, r in enumerate(ratings)]}


def test_spec_is_ordinal():
    assert SPEC.family == "ordinal" and SPEC.labels == ("1", "2", "3", "4", "5")


def test_backend_original_is_the_median_with_the_documented_tie_rule():
    for k, (name, (ratings, median)) in enumerate(CASES.items(), start=1):
        item, crowd = task_to_item(_task(k, ratings), SPEC)
        assert item.original == median, name
        assert sorted(c.label for c in crowd) == sorted(ratings)


def test_crowd_section_median_is_the_backend_original():
    ids = {name: k for k, name in enumerate(CASES, start=1)}
    crowd = {str(ids[name]): {f"a{j}": r for j, r in enumerate(ratings)} for name, (ratings, _) in CASES.items()}
    items = tuple(ItemResult(id=str(k), original=None, prediction="3", confidence=0.5, probs=None, flagged=False)
                  for k in ids.values())
    data = AuditData(project="p", spec=SPEC, items=items, crowd=crowd)
    labels = crowd_labels(data, method="median")
    for name, (ratings, median) in CASES.items():
        label, p_d = labels[str(ids[name])]
        assert label == median == task_to_item(_task(ids[name], ratings), SPEC)[0].original, name
        assert p_d == ratings.count(median) / len(ratings)


def test_the_crowd_section_names_two_annotators_with_identical_answers_on_every_item():
    # a1 and a2 give the same grade on all 12 items (DialSummEval's coherence raters 2 and 3 do so): a copied
    # column, which the crowd section must say rather than report its kappa as agreement.
    from stats_cli.report.sections.crowd import crowd_section

    grades = ["1", "2", "3", "4", "5", "3", "2", "4", "5", "1", "3", "4"]
    crowd = {str(k): {"a1": g, "a2": g, "a3": grades[(k + 2) % 12]} for k, g in enumerate(grades)}
    items = tuple(ItemResult(id=str(k), original=g, prediction=g, confidence=0.5, probs=None, flagged=False)
                  for k, g in enumerate(grades))
    section = crowd_section(AuditData(project="p", spec=SPEC, items=items, crowd=crowd))
    assert any("a1 and a2" in n and "identical" in n for n in section.notes), section.notes
