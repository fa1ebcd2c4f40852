"""The report of a several-control project: verdicts from the real engine and the composite family, one view
per control, every section once per control with its own family, the HTML without sections that cannot apply.

The judge is the TEST-ONLY ``HashTestProvider`` (not an LLM; it judges nothing, a distribution from the
prompt's hash): it gives the engine's real result shapes — one verdict per control, each preference asked in
both orders — on which the report's figures are checked against counts made here. The verdicts pass through
their JSON form, as the ledger stores and returns them.
"""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score

from backend.task.dataset import Item
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.engine import EngineConfig
from backend.scoring.members import MemberSpec, build_members
from backend.scoring.results import ItemResult
from backend.families.orders import position_flips
from backend.scoring.question_engine import make_engine
from stats_cli.sources.audit_data import AuditData, ExpertReview
from stats_cli.sources.control_view import control_views
from stats_cli.report.build import build_report
from stats_cli.report.model import Status
from stats_cli.report.render import render
from tests.backend.hash_provider import HashTestProvider

CONFIG = """<View>
  <Text name="prompt" value="$prompt"/>
  <Text name="answer1" value="$answer1"/>
  <Text name="answer2" value="$answer2"/>
  <Header value="How helpful is the first answer?"/>
  <Rating name="helpful" toName="answer1" maxRating="5"/>
  <Pairwise name="pw" toName="answer1,answer2"/>
  <Choices name="safe" toName="answer1"><Choice value="safe"/><Choice value="unsafe"/></Choices>
  <View visibleWhen="choice-selected" whenTagName="safe" whenChoiceValue="unsafe">
    <Choices name="harm" toName="answer1"><Choice value="mild"/><Choice value="severe"/></Choices>
  </View>
</View>"""
SPEC = spec_from_label_config(CONFIG)
FAMILY = SPEC.task_family
N = 12
EXPERT_A = ["1", "2", "3", "4", "5", "5", "4", "3", "2", "1", "3", "4"]
EXPERT_B = ["1", "2", "4", "4", "5", "4", "4", "2", "2", "1", "3", "5"]


def _original(i: int) -> str:
    values = {"helpful": str(1 + i % 5), "pw": ("left", "right", "left")[i % 3], "safe": "unsafe" if i % 4 == 0 else "safe"}
    if i % 4 == 0:
        values["harm"] = "mild"
    return FAMILY.encode_controls(SPEC, values)


def _audit() -> tuple[AuditData, list[ItemResult]]:
    provider = HashTestProvider()
    team = build_members([MemberSpec("hash", "h", prompts=("generic-question",))], SPEC,
                         provider_factory=lambda e: provider)
    items = [Item(f"t{i}", _original(i), {"prompt": f"question {i}", "answer1": f"first answer {i}",
                                           "answer2": f"second answer {i}"}) for i in range(N)]
    results = [ItemResult.from_json(json.loads(json.dumps(r.to_json())))  # as the ledger returns them
               for r in make_engine(SPEC, team, cache=None, config=EngineConfig(concurrency=1)).score(items)]
    reviews = {}
    for i, r in enumerate(results):
        values = FAMILY.control_values(SPEC, r.original)
        a = FAMILY.encode_controls(SPEC, {**values, "helpful": EXPERT_A[i]})
        b = FAMILY.encode_controls(SPEC, {**values, "helpful": EXPERT_B[i]})
        reviews[str(r.id)] = ExpertReview(str(r.id), round1={"A": a, "B": b})
    data = AuditData(project="grading", spec=SPEC, items=tuple(results), routed=frozenset(reviews), reviews=reviews,
                     experts=("A", "B"))
    return data, results


def test_the_composite_is_cut_into_one_view_per_control():
    data, results = _audit()
    views = {v.control.name: v for v in control_views(data)}
    assert list(views) == ["helpful", "pw", "safe", "harm"]
    assert views["helpful"].data.spec.family == "rating" and views["pw"].data.spec.family == "pairwise"
    assert views["helpful"].control.title == "How helpful is the first answer?"
    # "harm" is shown only where the original says unsafe (items 0, 4, 8)
    assert [str(it.id) for it in views["harm"].data.items] == ["t0", "t4", "t8"] and views["harm"].not_shown == N - 3
    for r, it in zip(results, views["pw"].data.items):
        assert it.prediction == json.loads(r.prediction)["pw"] and it.original == json.loads(r.original)["pw"]
        assert [q.id for q in it.questions] == ["ab", "ba"]  # both orders kept for the position-bias rate


def test_every_section_is_given_per_control_with_the_controls_family():
    data, results = _audit()
    report = build_report(data)
    overview = report.section("controls")
    assert [row[0] for row in overview.tables[0].rows] == [
        "How helpful is the first answer? (helpful)", "pw", "safe", "harm"]
    assert report.meta["controls"] == ["helpful", "pw", "safe", "harm"]
    ordinal = report.section("ordinal", control="helpful")
    assert ordinal.status is Status.OK
    assert ordinal.values["experts, before reconciliation"]["kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(EXPERT_A, EXPERT_B, labels=["1", "2", "3", "4", "5"], weights="quadratic"))
    assert report.section("ordinal", control="pw").status is Status.NOT_APPLICABLE
    pairwise = report.section("pairwise", control="pw")
    assert pairwise.status is Status.OK
    pw_verdicts = [q for r in results for q in r.questions if q.id == "pw"]
    flips = [position_flips(q, ("left", "right")) for q in pw_verdicts]
    (member,) = {m for f in flips for m in f}
    assert pairwise.values["position_bias"][member]["k"] == sum(f[member] for f in flips)
    assert pairwise.values["position_bias"][member]["n"] == N
    reversed_ = sum(1 for q in pw_verdicts if q.prediction != q.original)
    assert pairwise.values["reversals"]["reversed"] == {**pairwise.values["reversals"]["reversed"], "k": reversed_, "n": N}
    # the experts gave the original preference on every pair
    assert pairwise.values["agreement"]["experts, before reconciliation"]["with_ties"]["value"] == 1.0
    # the pairwise family's own skips hold for its control
    assert report.section("stratified", control="pw").status is Status.NOT_APPLICABLE


def test_the_html_shows_each_control_and_lists_what_cannot_apply_once():
    data, _ = _audit()
    html = render(build_report(data), fmt="html")
    assert "<section id='controls'>" in html and "<section id='pairwise-pw'>" in html
    assert "<section id='ordinal-helpful'>" in html and "<section id='ordinal-pw'>" not in html
    assert "NOT APPLICABLE" not in html
    left_out = html.split("<section id='not-in-this-report'>", 1)[1]
    line = next(li for li in left_out.split("<li>") if "not a preference control" in li)
    assert "How helpful is the first answer? (helpful), safe, harm)" in line  # every control but pw
    spans = next(li for li in left_out.split("<li>") if "Spans" in li)
    assert "(" not in spans.split(":")[0]  # not applicable to every control: no list of them


def test_a_conditional_controls_design_estimate_is_over_the_items_that_show_it():
    from dataclasses import replace

    from backend.review.sampling import Candidate, draw_sample

    data, _ = _audit()
    candidates = [Candidate(str(it.id), flagged=it.flagged, in_review=True, confidence=it.confidence)
                  for it in data.items]
    draw = draw_sample(candidates, budget=N, design="random", seed=1)  # every item drawn
    report = build_report(replace(data, sample=draw, sampled=frozenset(i.task_id for i in draw.items)))
    assert any(note.startswith("harm: shown only under a condition; its figures are over the items that show it")
               for note in report.section("controls").notes)
    errors = report.section("errors", control="harm")
    estimate = errors.values["estimate"]
    # "harm" is shown on 3 of the 12 items (t0, t4, t8): every figure is over those 3, drawn all
    assert (estimate["population"], estimate["sampled"], estimate["unsettled"]) == (3, 3, 0)
    assert errors.values["floor"]["population"] == 3
    assert report.section("errors", control="helpful").values["estimate"]["sampled"] == N
