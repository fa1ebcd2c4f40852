"""The flag cut fitted on the review, on control samples whose true cut is known by construction.

Scores are uniform on [0, 1] and a label is wrong with probability 0.9 above the true cut and 0.1 below, so
P(wrong | score) crosses 0.5 exactly at the true cut; the calibration (real scikit-learn) must find it.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend.review.active import ControlSample
from backend.review.calibration import MIN_REVIEWED, not_enough
from backend.review.fitted_threshold import BELOW_RANGE, NEVER, fitted_cut_line, fitted_flag_cut
from backend.scoring.results import ItemResult
from stats_cli.report.build import build_report
from stats_cli.report.render import render_table
from tests.stats_cli.report.builders import planted_audit, with_sample


def step_sample(true_cut: float, *, n: int = 400, seed: int = 0, weights: np.ndarray | None = None) -> ControlSample:
    rng = np.random.default_rng(seed)
    scores = rng.random(n)
    wrong = rng.random(n) < np.where(scores > true_cut, 0.9, 0.1)
    return ControlSample(tuple(f"c{i}" for i in range(n)), scores, wrong,
                         np.ones(n) if weights is None else weights)


def item(i: str, p_label: float, *, flagged: bool, insufficient: bool = False, verdict: bool = True) -> ItemResult:
    """A binary item labelled "1" whose ensemble gives P("1") = ``p_label`` (score 1 - p_label)."""
    probs = {"1": p_label, "0": 1.0 - p_label}
    pred = max(probs, key=probs.get)
    return ItemResult(id=i, original="1", prediction=pred if verdict else None,
                      confidence=probs[pred] if verdict else None, probs=probs if verdict else None,
                      flagged=flagged, insufficient=insufficient)


@pytest.mark.parametrize("true_cut", [0.3, 0.4, 0.7])
def test_isotonic_cut_lands_on_the_true_cut(true_cut):
    fitted = fitted_flag_cut([], step_sample(true_cut))
    assert fitted.reason is None and fitted.edge is None and fitted.method == "isotonic"
    assert fitted.cut == pytest.approx(true_cut, abs=0.05)
    assert fitted.n == 400 and fitted.wrong + fitted.right == 400


def test_logistic_cut_lands_near_the_true_cut():
    fitted = fitted_flag_cut([], step_sample(0.4), method="logistic")
    assert fitted.method == "logistic" and fitted.cut == pytest.approx(0.4, abs=0.1)


def test_pending_with_the_calibrations_own_reason_and_no_number():
    small = step_sample(0.4, n=MIN_REVIEWED - 1)
    fitted = fitted_flag_cut([item("a", 0.1, flagged=True)], small)
    assert fitted.pending and fitted.cut is None and fitted.more is None and fitted.fewer is None
    assert fitted.reason == not_enough(small.wrong)
    assert fitted.line() == f"Flag cut fitted on the review: {not_enough(small.wrong)}"
    few_wrong = ControlSample(tuple(str(i) for i in range(60)), np.linspace(0, 1, 60),
                              np.arange(60) >= 57, np.ones(60))  # 3 wrong: fewer than MIN_PER_OUTCOME
    assert fitted_flag_cut([], few_wrong).pending
    line, figure = fitted_cut_line([], None, {})
    assert figure is None and line.endswith("PENDING: no control sample drawn (review push --sample N)")


def test_design_weights_count_like_repeated_items():
    base = step_sample(0.4, n=200, seed=5)
    weights = np.random.default_rng(1).integers(1, 5, len(base.ids)).astype(float)
    weighted = fitted_flag_cut([], ControlSample(base.ids, base.scores, base.wrong, weights))
    reps = weights.astype(int)
    expanded = fitted_flag_cut([], ControlSample(tuple(np.repeat(base.ids, reps)), np.repeat(base.scores, reps),
                                                 np.repeat(base.wrong, reps), np.ones(int(reps.sum()))))
    unweighted = fitted_flag_cut([], base)
    assert weighted.cut == pytest.approx(expanded.cut, abs=1e-9)
    assert weighted.cut != pytest.approx(unweighted.cut, abs=1e-6)  # the weights did move it


def test_weights_shift_the_cut_toward_the_population():
    """Right labels at mid scores weighted 5x (under-sampled there) push the cut up, as in the population."""
    scores = np.linspace(0.01, 0.99, 99)
    wrong = np.array([s > 0.6 or (0.4 < s <= 0.6 and i % 2 == 0) for i, s in enumerate(scores)])
    mid_right = (scores > 0.4) & (scores <= 0.6) & ~wrong
    plain = fitted_flag_cut([], ControlSample(tuple(map(str, range(99))), scores, wrong, np.ones(99)))
    heavy = fitted_flag_cut([], ControlSample(tuple(map(str, range(99))), scores, wrong,
                                              np.where(mid_right, 5.0, 1.0)))
    assert plain.cut < 0.55 and heavy.cut > 0.58


def test_what_the_cut_would_change_over_the_scored_items():
    results = [
        item("kept", 0.2, flagged=True),               # score 0.8: flagged, above the cut
        item("unflag", 0.8, flagged=True),             # score 0.2: flagged by the engine, below the cut
        item("flag", 0.55, flagged=False),             # score 0.45: argmax agrees, yet above a 0.4 cut
        item("quiet", 0.9, flagged=False),             # score 0.1: stays unflagged
        item("quorum", 0.05, flagged=False, insufficient=True),  # no quorum: never flagged, not counted
        item("unscored", 0.5, flagged=False, verdict=False),     # no verdict: not counted
    ]
    fitted = fitted_flag_cut(results, step_sample(0.4))
    assert 0.3 < fitted.cut < 0.45
    assert (fitted.more, fitted.fewer, fitted.scored) == (1, 1, 4)
    assert fitted.line().startswith(f"Flag cut fitted on the review: 1 − P(label) ≥ {fitted.cut:.2f} (isotonic, "
                                    f"400 reviewed control items, {fitted.wrong} wrong) — would flag 1 more, unflag 1")


def test_no_cut_when_the_labels_are_mostly_right_at_every_score():
    scores = np.linspace(0.0, 1.0, 40)
    wrong = np.arange(40) % 5 == 2  # 8 wrong, spread evenly: P(wrong) about 0.2 everywhere
    fitted = fitted_flag_cut([item("a", 0.1, flagged=True), item("b", 0.9, flagged=False)],
                             ControlSample(tuple(map(str, range(40))), scores, wrong, np.ones(40)))
    assert fitted.cut is None and fitted.edge == NEVER and fitted.top_probability < 0.5
    assert (fitted.more, fitted.fewer) == (0, 1) and "none" in fitted.line()


def test_cut_below_the_reviewed_range_says_so():
    scores = np.linspace(0.3, 1.0, 40)
    wrong = np.arange(40) % 4 != 3  # 30 wrong, 10 right: P(wrong) about 0.75 from the lowest score up
    fitted = fitted_flag_cut([], ControlSample(tuple(map(str, range(40))), scores, wrong, np.ones(40)))
    assert fitted.edge == BELOW_RANGE and fitted.cut == pytest.approx(0.3)
    assert "lowest reviewed score" in fitted.line()


def test_report_calibration_section_shows_the_fitted_cut():
    """Through the report: the planted audit's census sample (every item reviewed, weights 1).

    Wrong labels all score >= 0.62 (the flipped items' confidence), right ones outside the two false alarms
    score <= 0.40; the isotonic fit is 0 up to 0.40 and 3/4 from 0.62 (a false alarm pooled with three
    errors), so it crosses 0.5 at 0.40 + (0.5 / 0.75) x (0.62 - 0.40), and every current flag stays.
    """
    data, truth = planted_audit()
    data, draw = with_sample(data, truth, design="random", budget=len(data.items))
    assert {d.inclusion_probability for d in draw.items} == {1.0}
    report = build_report(data, only={"calibration"})
    section = report.section("calibration")
    cut = section.values["fitted_cut"]
    lowest_wrong = min(it.confidence for it in data.items if it.flagged)
    assert cut["cut"] == pytest.approx(0.40 + (0.5 / 0.75) * (lowest_wrong - 0.40), abs=1e-3)
    assert (cut["n"], cut["wrong"], cut["would_flag_more"], cut["would_unflag"]) == (40, 9, 0, 0)
    text = " ".join(render_table(report).split())  # rich folds long notes at the console's width
    assert f"Flag cut fitted on the review: 1 − P(label) ≥ {cut['cut']:.2f} (isotonic, 40 reviewed control" in text


def test_report_says_pending_before_enough_control_items():
    data, truth = planted_audit()
    data, draw = with_sample(data, truth, design="random", budget=10)
    assert len(draw.items) == 10
    section = build_report(data, only={"calibration"}).section("calibration")
    assert section.status.value == "pending" and section.reason.startswith("10 reviewed control items (3 wrong")
    assert "fitted_cut" not in section.values  # no figure while the calibration itself is pending


def test_status_line_is_the_reports_figure():
    """``review status`` prints :func:`fitted_cut_line` on the stored draw and gold: the report's same line."""
    from backend.scoring.ensemble import label_error

    data, truth = planted_audit()
    data, draw = with_sample(data, truth, design="random", budget=len(data.items))
    outcomes = {str(it.id): data.outcome(it) for it in data.items}
    line, figure = fitted_cut_line(list(data.items), draw, outcomes,
                                   is_error=lambda gold, original: label_error(gold, original, data.spec),
                                   family=data.spec.task_family.name)
    section = build_report(data, only={"calibration"}).section("calibration")
    assert figure is not None and figure.to_json() == section.values["fitted_cut"]
    assert line in section.notes and line.startswith("Flag cut fitted on the review: 1 − P(label) ≥ 0.55 ")
