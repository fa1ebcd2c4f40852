"""The verdicts per class against the labels under audit: a class the judges under- or over-read is named.

The synthetic project of ``test_label_fit`` has two of three judges blind to class B: their average under-reads it
(the case of SNLI's neutral, docs/judges.md), and ``fitted`` reads it back. The check must name B on the average
and not on the reading that recovers it, each time with the counts recomputed here from the verdicts.
"""

from __future__ import annotations

from collections import Counter

import pytest

from backend.scoring.class_reach import MIN_LABELS, READ_BAR, class_reach, reach_lines
from backend.scoring.ensemble import VerdictRule
from backend.scoring.project_pass import project_pass
from backend.scoring.results import ItemResult
from backend.task.generic import generic_spec
from backend.summaries.score_summary import adjustment_lines, print_summary
from tests.backend.scoring.test_label_fit import LABELS, RULE, _project


def _row(i: int, original: str | None, prediction: str | None) -> ItemResult:
    return ItemResult(f"item-{i}", original, prediction, None if prediction is None else 0.9, None,
                      prediction is not None and prediction != original)


def _counts(results) -> tuple[Counter, Counter]:
    counted = [r for r in results if r.prediction is not None and r.original in LABELS]
    return Counter(r.original for r in counted), Counter(r.prediction for r in counted)


def test_the_average_of_judges_blind_to_a_class_is_named_under_reading_it():
    results, _, _ = _project(300)
    gated, info = project_pass(results, RULE, prior_correction="none")
    labelled, predicted = _counts(gated)
    reach = info["class_reach"]
    assert reach["classes"] == [{"label": lab, "labelled": labelled[lab], "predicted": predicted[lab]}
                                for lab in LABELS]
    assert predicted["B"] < labelled["B"] / READ_BAR  # the premise: the average under-reads B
    assert reach["under"] == ["B"] and reach["items"] == 300
    assert reach["over"] == [lab for lab in LABELS if predicted[lab] > labelled[lab] * READ_BAR]
    line = next(line for line in adjustment_lines(info) if line.startswith("Verdicts against the labels"))
    assert f"\"B\" predicted for {predicted['B']} items where {labelled['B']} carry it (under-read" in line
    assert "over 300 labelled items" in line


def test_the_reading_that_recovers_the_class_is_not_named():
    results, _, _ = _project(300)
    chosen, info = project_pass(results, RULE, prior_correction="auto")
    labelled, predicted = _counts(chosen)
    assert info["prior_correction"]["chosen"] == "fitted"
    assert all(labelled[lab] / READ_BAR <= predicted[lab] <= labelled[lab] * READ_BAR for lab in LABELS)
    assert info["class_reach"]["under"] == info["class_reach"]["over"] == []
    assert not any(line.startswith("Verdicts against the labels") for line in adjustment_lines(info))


def test_counts_leave_out_unscored_and_unlabelled_items_and_thin_classes_are_not_judged():
    rows = ([_row(i, "A", "A") for i in range(8)] + [_row(8 + i, "B", "A") for i in range(4)]
            + [_row(20, "C", "C"), _row(21, None, "B"), _row(22, "B", None), _row(23, "other", "C")])
    reach = class_reach(rows, LABELS)
    assert reach["classes"] == [{"label": "A", "labelled": 8, "predicted": 12},
                                {"label": "B", "labelled": 4, "predicted": 0},
                                {"label": "C", "labelled": 1, "predicted": 1}]
    assert reach["items"] == 13 and reach["min_labels"] == MIN_LABELS
    assert reach["under"] == [] and reach["over"] == []  # B has 4 labels: below the minimum, not judged
    assert reach_lines(reach) == []
    assert class_reach(rows, LABELS, min_labels=4)["under"] == ["B"]
    assert class_reach(rows, LABELS, bar=1.4)["over"] == ["A"]  # 12 of 8 is 1.5x: within 1.5, beyond 1.4


@pytest.mark.parametrize("kwargs", [{"bar": 1.0}, {"bar": 0.5}, {"min_labels": 0}])
def test_a_bar_that_cannot_name_anything_is_refused(kwargs):
    with pytest.raises(ValueError, match="bar must exceed 1"):
        class_reach([], LABELS, **kwargs)


def test_a_multilabel_run_carries_no_class_reach():
    multi = VerdictRule(generic_spec(labels=LABELS, fields=["text"], family="multilabel"))
    assert "class_reach" not in project_pass([], multi, prior_correction="none")[1]
    assert "class_reach" in project_pass([], RULE, prior_correction="none")[1]


def test_the_score_summary_prints_the_under_read_class(capsys):
    from rich.console import Console

    results, _, _ = _project(300)
    _, info = project_pass(results, RULE, prior_correction="none")
    summary = {"members": [], "items": 300, "scored": 300, "flagged": 0, "llm_calls": 0, "cache_hits": 0,
               "model_version": "v", "threshold": 0.5, "task": "t", **info}
    print_summary(summary, Console(width=400, force_terminal=False))
    out = capsys.readouterr().out
    reach = {row["label"]: row for row in info["class_reach"]["classes"]}
    assert f"\"B\" predicted for {reach['B']['predicted']} items where {reach['B']['labelled']} carry it" in out
