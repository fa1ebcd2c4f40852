"""The family sections of the report (ordinal grades, preference pairs) and what the HTML leaves out.

Checked against scikit-learn, the krippendorff package and counts written in the test.
"""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from backend.scoring.results import ItemResult, MemberResult
from backend.task.spec import load_spec, spec_from_mapping
from stats_cli.sources.audit_data import AuditData, ExpertReview
from stats_cli.sources.control_view import Control, split_by_control
from stats_cli.report.build import build_report
from stats_cli.report.controls import controls_section, qualified
from stats_cli.report.model import Report, Status
from stats_cli.report.render import render
from stats_cli.report.sections.ordinal import ordinal_section
from stats_cli.report.sections.pairwise import pairwise_section
from tests.stats_cli.report.builders import planted_audit

LIKERT = load_spec("likert")
PAIR = spec_from_mapping({"name": "preference", "family": "pairwise", "fields": {"a": "a", "b": "b"},
                          "labels": ["left", "right", "tie"], "pair": ["a", "b"]})
A = ["1", "2", "3", "4", "5", "5", "4", "3", "2", "1", "3", "4"]
B = ["1", "2", "4", "4", "5", "4", "4", "2", "2", "1", "3", "5"]
ORIGINAL = ["1", "2", "3", "4", "1", "5", "4", "3", "2", "5", "3", "4"]


def _likert_audit(*, reconcile: bool) -> AuditData:
    items, reviews = [], {}
    for i, (a, b, original) in enumerate(zip(A, B, ORIGINAL)):
        items.append(ItemResult(id=f"t{i}", original=original, prediction=a, confidence=0.8, probs=None,
                                flagged=abs(int(a) - int(original)) > 1))
        round2 = {"A": a, "B": a} if reconcile and a != b else {}
        reviews[f"t{i}"] = ExpertReview(f"t{i}", round1={"A": a, "B": b}, round2=round2)
    return AuditData(project="p", spec=LIKERT, items=tuple(items), routed=frozenset(reviews), reviews=reviews,
                     experts=("A", "B"))


def test_ordinal_section_gives_weighted_kappa_and_alpha_beside_the_nominal_figures():
    sec = ordinal_section(_likert_audit(reconcile=True))
    assert sec.status is Status.OK
    before = sec.values["experts, before reconciliation"]
    grades = list(LIKERT.labels)
    assert before["cohen_kappa"] == pytest.approx(cohen_kappa_score(A, B))
    assert before["kappa_quadratic"] == pytest.approx(cohen_kappa_score(A, B, labels=grades, weights="quadratic"))
    assert before["kappa_linear"] == pytest.approx(cohen_kappa_score(A, B, labels=grades, weights="linear"))
    reliability = np.array([A, B], dtype=float)
    for level in ("nominal", "ordinal", "interval"):
        assert before[f"alpha_{level}"] == pytest.approx(
            krippendorff.alpha(reliability_data=reliability, level_of_measurement=level, value_domain=[1, 2, 3, 4, 5]))
    assert sec.values["experts, after reconciliation"]["kappa_quadratic"] == pytest.approx(1.0)
    ensemble = sec.values["LLM ensemble vs original label"]
    assert ensemble["kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(ORIGINAL, A, labels=grades, weights="quadratic"))
    (table,) = sec.tables
    assert [row[0] for row in table.rows] == ["experts, before reconciliation", "experts, after reconciliation",
                                              "LLM ensemble vs original label"]


def test_ordinal_after_reconciliation_waits_for_every_split_item():
    sec = ordinal_section(_likert_audit(reconcile=False))
    assert "experts, after reconciliation" not in sec.values
    assert any("pending" in note for note in sec.notes)


def _order(key: str, tops: dict[str, str]) -> ItemResult:
    members = tuple(MemberResult(m, probs={top: 0.9, **{o: 0.05 for o in ("left", "right", "tie") if o != top}},
                                 method="logprobs") for m, top in tops.items())
    return ItemResult(id=key, original=None, prediction=None, confidence=None, probs=None, flagged=False,
                      members=members)


def _pair_audit() -> AuditData:
    originals = ["left", "left", "right", "tie", "left", "right"]
    predictions = ["left", "right", "left", "left", "tie", "right"]
    experts = [("left", "left"), ("right", "left"), ("left", "left"), ("tie", "tie"), ("tie", "left"),
               ("right", "right")]
    items, reviews = [], {}
    for i, (original, prediction, (a, b)) in enumerate(zip(originals, predictions, experts)):
        # judge "first" always prefers the response shown first (flips on every item); "steady" never flips
        orders = (_order("ab", {"first": "left", "steady": prediction}),
                  _order("ba", {"first": "right", "steady": prediction}))
        items.append(ItemResult(id=f"p{i}", original=original, prediction=prediction, confidence=0.7, probs=None,
                                flagged=prediction != original, questions=orders))
        reviews[f"p{i}"] = ExpertReview(f"p{i}", round1={"A": a, "B": b})
    return AuditData(project="p", spec=PAIR, items=tuple(items), routed=frozenset(reviews), reviews=reviews,
                     experts=("A", "B"))


def test_pairwise_section_counts_ties_bias_and_reversals():
    sec = pairwise_section(_pair_audit())
    assert sec.status is Status.OK
    experts = sec.values["agreement"]["experts, before reconciliation"]
    # expert pairs: l/l, r/l, l/l, t/t, t/l, r/r -> 4 of 6 agree with ties; without ties 3 of 4 (t/t and t/l out)
    assert (experts["with_ties"]["k"], experts["with_ties"]["n"]) == (4, 6)
    assert (experts["without_ties"]["k"], experts["without_ties"]["n"]) == (3, 4) and experts["tie_pairs"] == 2
    turned = sec.values["reversals"]
    # originals that took a side: 5 (l, l, r, l, r); reversed: l->r, r->l; l->tie once; tie->l once
    assert (turned["reversed"]["k"], turned["reversed"]["n"]) == (2, 5)
    assert turned["to_tie"] == 1 and turned["from_tie"] == 1
    bias = sec.values["position_bias"]
    assert (bias["first"]["k"], bias["first"]["n"]) == (6, 6) and (bias["steady"]["k"], bias["steady"]["n"]) == (0, 6)
    assert bias["first"]["low"] == pytest.approx(0.025 ** (1 / 6))  # Clopper-Pearson lower end at k = n: (α/2)^(1/n)
    first = sec.values["first_position"]  # which side: "first" takes the first-shown response in all 12 answers
    assert (first["first"]["k"], first["first"]["n"]) == (12, 12)
    # "steady" answers the same in both orders: the first-shown response in one of the two (tie answers left out)
    assert first["steady"]["n"] == 10 and first["steady"]["k"] == 5
    header = next(t for t in sec.tables if t.title.startswith("Position bias")).columns
    assert "% first shown preferred" in header


def test_family_sections_do_not_apply_elsewhere_and_the_html_lists_them_once_at_the_end():
    data, _ = planted_audit()  # a binary project
    report = build_report(data)
    assert report.section("ordinal").status is Status.NOT_APPLICABLE
    assert report.section("pairwise").status is Status.NOT_APPLICABLE
    html = render(report, fmt="html")
    assert "<section id='ordinal'>" not in html and "<section id='pairwise'>" not in html
    left_out = html.split("<section id='not-in-this-report'>", 1)[1]
    assert "Ordinal agreement: weighted κ and α" in left_out and "not a preference control" in left_out
    assert "NOT APPLICABLE" not in html  # no grey box one by one
    assert "<section id='errors'>" in html  # what applies is shown as before


def test_sections_of_several_controls_are_qualified_and_the_left_out_ones_share_a_line():
    coherence, fluency = (Control("coherence", LIKERT, tag="Rating", title="Coherence"),
                          Control("fluency", LIKERT, tag="Rating"))
    base = _likert_audit(reconcile=True)
    items = tuple(ItemResult(id=it.id, original=json.dumps({"coherence": it.original, "fluency": it.original}),
                             prediction=json.dumps({"coherence": it.prediction, "fluency": it.original}),
                             confidence=0.8, probs=None, flagged=it.flagged,
                             questions=(ItemResult(id="coherence", original=it.original, prediction=it.prediction,
                                                   confidence=0.8, probs=None, flagged=it.flagged),
                                        ItemResult(id="fluency", original=it.original, prediction=it.original,
                                                   confidence=0.8, probs=None, flagged=False)))
                  for it in base.items)
    data = AuditData(project="p", spec=LIKERT, items=items, experts=("A", "B"))
    views = split_by_control(data, (coherence, fluency), parts=json.loads)
    sections = [controls_section(views)]
    for view in views:
        sections += [qualified(ordinal_section(view.data), view), qualified(pairwise_section(view.data), view)]
    report = Report(project="p", generated_at="now", sections=tuple(sections))
    overview = report.section("controls")
    assert [row[0] for row in overview.tables[0].rows] == ["Coherence (coherence)", "fluency"]
    assert [row[6] for row in overview.tables[0].rows] == [sum(it.flagged for it in base.items), 0]
    assert report.section("ordinal", control="fluency").values["LLM ensemble vs original label"]["alpha_ordinal"] == 1.0
    html = render(report, fmt="html")
    assert "<h2>Ordinal agreement: weighted κ and α — Coherence (coherence)</h2>" in html
    left_out = html.split("<section id='not-in-this-report'>", 1)[1]
    assert left_out.count("not a preference control") == 1  # one line for both controls, which are all of them:
    assert "<li><b>Preference pairs: ties, position bias, reversals</b>: not a preference control" in left_out
    assert json.loads(render(report, fmt="json"))["sections"][1]["control"] == "coherence"
