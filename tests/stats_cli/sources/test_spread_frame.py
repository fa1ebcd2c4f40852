"""A ``spread`` draw (``review push --until-width``) in the report: its frame rebuilt by the judges' certainty."""

from __future__ import annotations

from dataclasses import replace

from backend.review.active import wrong_score
from backend.review.spread_design import certainty_stratum, spread_draw
from stats_cli.report.inputs import ExpertReview
from stats_cli.report.sections.errors import errors_section
from stats_cli.sources.sample_frame import sample_frame
from tests.stats_cli.report.builders import planted_audit


def spread_project():
    data, truth = planted_audit(n=300, flipped=frozenset(range(0, 300, 6)), false_alarms=frozenset({7, 100, 200}))
    scores = {str(it.id): wrong_score(it) for it in data.items if it.prediction is not None and it.original is not None}
    draw = spread_draw({k: v for k, v in scores.items() if v is not None}, size=80, seed=1)
    reviews = dict(data.reviews)
    for drawn in draw.items:
        t = truth[drawn.task_id]
        reviews.setdefault(drawn.task_id, ExpertReview(drawn.task_id, round1={"A": t, "B": t}))
    return replace(data, reviews=reviews, sample=draw, sampled=frozenset(i.task_id for i in draw.items)), draw, scores


def test_the_frame_of_a_spread_draw_puts_every_item_in_its_certainty_stratum():
    data, draw, scores = spread_project()
    frame = sample_frame(data)
    assert frame is not None and frame.strata is not None, frame
    assert all(frame.strata[t] == certainty_stratum(s) for t, s in scores.items())
    counts = {}
    for name in frame.strata.values():
        counts[name] = counts.get(name, 0) + 1
    assert counts == {k: v for k, v in draw.strata.items() if v}


def test_the_report_estimates_the_rate_from_a_spread_draw():
    data, draw, _ = spread_project()
    sec = errors_section(data)
    judged = sec.values["with_judges"]
    assert judged["reviewed"] == len(draw.items) and judged["population"] == 300
    assert judged["with_judges"]["low"] <= 50 / 300 <= judged["with_judges"]["high"]
