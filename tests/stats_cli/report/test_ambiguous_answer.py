"""The report and the gold file with "More than one answer may be right" answers (review push --ambiguous-choice)."""

from __future__ import annotations

from dataclasses import replace

from backend.review.outcome import AMBIGUOUS_ANSWER, GoldStatus
from stats_cli.report.build import build_report
from stats_cli.report.inputs import ExpertReview
from stats_cli.sources.gold_export import gold_rows
from tests.stats_cli.report.builders import planted_audit


def test_agreed_ambiguous_items_have_no_gold_and_agreement_counts_the_token_as_a_category():
    data, _truth = planted_audit()
    flagged = sorted(data.reviews)
    both, split = flagged[0], flagged[1]
    reviews = dict(data.reviews)
    reviews[both] = ExpertReview(both, round1={"A": AMBIGUOUS_ANSWER, "B": AMBIGUOUS_ANSWER})
    reviews[split] = ExpertReview(split, round1={"A": AMBIGUOUS_ANSWER, "B": "1"},
                                  round2={"A": AMBIGUOUS_ANSWER, "B": AMBIGUOUS_ANSWER})
    data = replace(data, reviews=reviews, experts=("A", "B"))
    by_id = {str(it.id): it for it in data.items}
    assert data.gold(by_id[both]) == (None, GoldStatus.EXPERTS_AMBIGUOUS)
    assert data.gold(by_id[split]) == (None, GoldStatus.EXPERTS_AMBIGUOUS)
    assert both not in {str(it.id) for it, _gold in data.reviewed()}

    report = build_report(data)
    errors, experts = report.section("errors"), report.section("experts")
    assert errors.sizes["more than one answer may be right"] == 2
    assert any("more than one answer may be right" in n and "no gold label" in n for n in errors.notes)
    assert any("one more category" in n for n in experts.notes)
    before = experts.values["before"]
    assert before is not None and experts.values["after"] is not None

    rows = {r.id: r for r in gold_rows(data)}
    assert (rows[both].gold, rows[both].label, rows[both].action) == (None, by_id[both].original, "kept")
    assert rows[both].source == "experts: more than one answer may be right"


def test_the_triage_section_checks_its_classes_against_the_experts_ambiguous_verdicts():
    data, _truth = planted_audit()
    flagged = sorted(data.reviews)
    reviews = dict(data.reviews)
    for item in flagged[:2]:
        reviews[item] = ExpertReview(item, round1={"A": AMBIGUOUS_ANSWER, "B": AMBIGUOUS_ANSWER})
    data = replace(data, reviews=reviews, experts=("A", "B"))
    section = build_report(data).section("triage")
    assert section.sizes["experts: more than one answer"] == 2
    (note,) = [n for n in section.notes if "more than one answer may be right on 2 item(s)" in n]
    classes = {row["item"]: row["class"] for row in section.values["items"]}
    triaged = [classes[i] for i in flagged[:2] if i in classes]
    held = sum(k != "likely error" for k in triaged)
    assert f"had called {held} of the {len(triaged)} flagged" in note
