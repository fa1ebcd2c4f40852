"""The *Label errors* section's judge-assisted rows: beside the design-only ones, PENDING without a basis."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stats_cli.report.sections.errors import errors_section
from stats_cli.sources.judge_scores import judge_strata
from stats_cli.stats.judge_assisted import judge_assisted_rate
from tests.stats_cli.report.builders import planted_audit, with_sample

NAME = "error rate over the N items with the judges' scores (%)"


def project(budget: int = 90):
    data, truth = planted_audit(n=300, flipped=frozenset(range(0, 300, 6)), false_alarms=frozenset({7, 100, 200}))
    return with_sample(data, truth, design="random", budget=budget)


def test_the_section_shows_the_judge_assisted_rate_beside_the_design_only_one():
    data, draw = project()
    sec = errors_section(data)
    rows = {r[0]: r for r in sec.tables[0].rows}
    assert list(rows).index(NAME) == list(rows).index("errors among the N items (count)") + 1
    judged = sec.values["with_judges"]
    assert judged["used_judges"] and judged["width_ratio"] < 0.5  # this ensemble sees every flip
    assert rows[NAME][1] == pytest.approx(100 * judged["with_judges"]["value"])
    assert judged["with_judges"]["low"] <= 50 / 300 <= judged["with_judges"]["high"]
    assert judged["reviewed"] == len(draw.items) and judged["population"] == 300
    assert any("narrower" in n and "random draw" in n and "design-only row above" in n for n in sec.notes)
    plan = judged["reviews_for"]["0.02"]
    assert plan["with_judges"] < plan["design_only"]
    assert any(f"about {plan['with_judges']} reviews in all" in n for n in sec.notes)
    # how many more from here, read off the same interval's residual variance (reviews_for's size minus the sample)
    more = plan["with_judges"] - judged["reviewed"]
    half = (judged["with_judges"]["high"] - judged["with_judges"]["low"]) / 2
    expected = "±2 points reached" if half <= 0.02 else f"about {more} more reviews to reach ±2 points"
    assert any(expected in n for n in sec.notes)


def test_its_scores_are_cross_fitted_on_the_control_sample():
    data, _ = project()
    inputs = judge_strata(data)
    assert inputs.strata is not None and "cross-fitted" in inputs.scores
    assert judge_assisted_rate(inputs.strata).used_judges


def test_without_a_sample_or_with_an_open_drawn_item_it_is_pending():
    data, truth = planted_audit()
    rows = {r[0]: r for r in errors_section(data).tables[0].rows}
    assert rows[NAME][1] == "PENDING" and "no random sample" in rows[NAME][5]
    full, draw = project()
    control = next(i.task_id for i in draw.items if i.task_id not in full.routed)
    partial = replace(full, reviews={k: v for k, v in full.reviews.items() if k != control})
    rows = {r[0]: r for r in errors_section(partial).tables[0].rows}
    assert rows[NAME][1] == "PENDING" and "not settled" in rows[NAME][5]
    assert any("reviews to reach ±2 points: PENDING (a drawn item is not settled yet" in n
               for n in errors_section(partial).notes)
