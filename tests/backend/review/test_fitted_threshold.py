"""The flag cut fitted on the review, on control samples whose true cut is known by construction.

Scores are uniform on [0, 1] and a label is wrong with probability 0.9 above the true cut and 0.1 below, so
P(wrong | score) crosses 0.5 exactly at the true cut; the calibration (real scikit-learn) must find it.
"""

from __future__ import annotations

import numpy as np
import pytest

from dataclasses import replace

from backend.review.active import ControlSample
from backend.review.calibration import MIN_REVIEWED, not_enough
from backend.review.fitted_threshold import BELOW_RANGE, NEVER, fitted_cut_line, fitted_flag_cut
from backend.review.member_cut import member_cuts
from backend.review.outcome import GoldStatus, ReviewOutcome
from backend.review.sampling import Candidate, draw_sample
from backend.scoring.results import ItemResult, MemberResult
from stats_cli.report.build import build_report
from stats_cli.report.render import render_markdown, render_table
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


# --- the confident-learning member's own cut (backend.review.member_cut) ---------------------------------

CL = "cleanlab:tfidf-logreg"
CL_ID = f"{CL}/features@v1"
CL_SUBJECT = f"Flag cut fitted on the review for {CL} alone"


def member_item(k: int, *, member_p: float | None, flagged: bool) -> ItemResult:
    """A binary item labelled "1": the ensemble's P("1") 0.3 when flagged, else 0.6 (it separates nothing);
    the cleanlab member's own P("1") = ``member_p`` (None: the member did not answer)."""
    p = 0.3 if flagged else 0.6
    members = [MemberResult("local:a/p1", probs={"1": p, "0": 1 - p})]
    if member_p is not None:
        members.append(MemberResult(CL_ID, probs={"1": member_p, "0": 1 - member_p}))
    return ItemResult(id=f"m{k}", original="1", prediction="0" if flagged else "1", confidence=max(p, 1 - p),
                      probs={"1": p, "0": 1 - p}, flagged=flagged, members=tuple(members))


def member_project(n: int = 40, *, answered: int | None = None) -> tuple[list[ItemResult], dict[str, str]]:
    """``n`` items, every fourth label wrong; the member gives wrong labels P(label) 0.1-0.25 (score 0.75-0.9)
    and right ones 0.7-0.95 (score 0.05-0.3), on the first ``answered`` items only. The engine flags m0 and
    m4 (wrong) and m1 (right). One more right item, m{n}, the member never answered."""
    answered = n if answered is None else answered
    results, truth = [], {}
    for k in range(n):
        wrong = k % 4 == 0
        p = (0.1 + 0.15 * k / n) if wrong else (0.7 + 0.25 * k / n)
        results.append(member_item(k, member_p=p if k < answered else None, flagged=k in (0, 1, 4)))
        truth[f"m{k}"] = "0" if wrong else "1"
    results.append(member_item(n, member_p=None, flagged=False))
    truth[f"m{n}"] = "1"
    return results, truth


def census(results: list[ItemResult], truth: dict[str, str]):
    """Every item drawn (inclusion probability 1) and settled by the experts with ``truth``."""
    draw = draw_sample([Candidate(str(r.id), flagged=r.flagged, confidence=r.confidence) for r in results],
                       budget=len(results), design="random", seed=0)
    outcomes = {str(r.id): ReviewOutcome(str(r.id), r.original, r.prediction, r.confidence, truth[str(r.id)],
                                         GoldStatus.EXPERTS_AGREE) for r in results}
    return draw, outcomes


def _member_score(item: ItemResult) -> float | None:
    probs = next((m.probs for m in item.members if m.member_id == CL_ID), None)
    return None if probs is None else 1.0 - probs[item.original]


def test_member_cut_lies_between_the_members_wrong_and_right_scores():
    results, truth = member_project()
    draw, outcomes = census(results, truth)
    (cut,) = member_cuts(results, draw, outcomes)
    fitted = cut.fitted
    scores = {str(r.id): _member_score(r) for r in results}
    top_right = max(s for i, s in scores.items() if s is not None and truth[i] == "1")
    low_wrong = min(s for i, s in scores.items() if s is not None and truth[i] == "0")
    assert cut.member == CL and top_right < fitted.cut < low_wrong
    # isotonic on separated classes: 0 up to the highest right score, 1 from the lowest wrong one, linear between
    assert fitted.cut == pytest.approx((top_right + low_wrong) / 2, abs=1e-9)
    # its own control sample: the 41st item, which the member never answered, is not in it
    assert (fitted.method, fitted.n, fitted.wrong, fitted.right) == ("isotonic", 40, 10, 30)
    # against the engine's flags (m0, m4 wrong; m1 right): the 8 other wrong labels added, m1 dropped
    assert (fitted.more, fitted.fewer, fitted.scored) == (8, 1, 40)
    assert cut.line.startswith(f"{CL_SUBJECT}: its 1 − P(label) ≥ {fitted.cut:.2f} (isotonic, 40 reviewed control "
                               f"items, 10 wrong) — would flag 8 more, unflag 1 (of 40 scored items")
    # the ensemble's own cut, on the same draw, rests on its own scores (all 41 items) and differs
    ensemble_line, ensemble = fitted_cut_line(results, draw, outcomes)
    assert ensemble.n == 41 and ensemble.cut != pytest.approx(fitted.cut, abs=0.05)
    assert cut.to_json()["cut"] == round(fitted.cut, 4) and cut.to_json()["line"] == cut.line


def test_member_cut_is_pending_on_its_own_too_few_reviewed_items():
    results, truth = member_project(answered=20)  # the member answered 20 of the 41 settled control items
    draw, outcomes = census(results, truth)
    (cut,) = member_cuts(results, draw, outcomes)
    answered_wrong = [truth[str(r.id)] == "0" for r in results if _member_score(r) is not None]
    assert len(answered_wrong) == 20
    reason = not_enough(answered_wrong)
    assert cut.fitted.pending and cut.fitted.cut is None and cut.fitted.more is None
    assert cut.fitted.reason == reason and reason.startswith("PENDING: 20 reviewed control items (5 wrong labels)")
    assert cut.line == f"{CL_SUBJECT}: {reason}"
    assert not fitted_cut_line(results, draw, outcomes)[1].pending  # the ensemble's 41 are enough
    (no_draw,) = member_cuts(results, None, outcomes)
    assert no_draw.fitted is None
    assert no_draw.line == f"{CL_SUBJECT}: PENDING: no control sample drawn (review push --sample N)"


def test_no_confident_learning_member_no_line():
    results, truth = member_project()
    without = [replace(r, members=tuple(m for m in r.members if m.member_id != CL_ID)) for r in results]
    draw, outcomes = census(without, truth)
    assert member_cuts(without, draw, outcomes) == [] and member_cuts(without, None, outcomes) == []
    data, truth = planted_audit()  # local judges only
    data, _ = with_sample(data, truth, design="random", budget=len(data.items))
    section = build_report(data, only={"calibration"}).section("calibration")
    assert section.values["member_cuts"] == [] and not any("alone" in note for note in section.notes)


def test_report_shows_the_members_cut_beside_the_ensembles():
    """Through the report (text, Markdown, HTML): the planted audit with a cleanlab member that gives every wrong
    label P(label) 0.10-0.20 and every right one 0.80-0.90, on the census sample; ``review status``'s figure."""
    from html import escape

    from backend.scoring.ensemble import label_error
    from stats_cli.report.html import render_html

    data, truth = planted_audit()
    items, scores = [], {}
    for k, it in enumerate(data.items):
        p = (0.10 if truth[str(it.id)] != it.original else 0.80) + 0.0025 * k
        scores[str(it.id)] = 1 - p
        other = "0" if it.original == "1" else "1"
        items.append(replace(it, members=(*it.members, MemberResult(CL_ID, probs={it.original: p, other: 1 - p}))))
    data, _ = with_sample(replace(data, items=tuple(items)), truth, design="random", budget=len(items))
    report = build_report(data, only={"calibration"})
    section = report.section("calibration")
    (figure,) = section.values["member_cuts"]
    originals = {str(it.id): it.original for it in data.items}
    top_right = max(s for i, s in scores.items() if truth[i] == originals[i])
    low_wrong = min(s for i, s in scores.items() if truth[i] != originals[i])
    assert figure["member"] == CL and figure["cut"] == pytest.approx((top_right + low_wrong) / 2, abs=1e-4)
    # the engine flags the 9 wrong labels and 2 false alarms; the member's cut keeps the 9, drops the 2
    assert (figure["n"], figure["wrong"], figure["right"]) == (40, 9, 31)
    assert (figure["would_flag_more"], figure["would_unflag"], figure["scored"]) == (0, 2, 40)
    line, notes = figure["line"], list(section.notes)
    assert line.startswith(f"{CL_SUBJECT}: its 1 − P(label) ≥ {figure['cut']:.2f} (isotonic, 40 reviewed control")
    ensemble = next(k for k, note in enumerate(notes) if note.startswith("Flag cut fitted on the review: "))
    assert notes[ensemble + 1] == line and section.values["fitted_cut"]["n"] == 40  # beside the ensemble's
    assert line in " ".join(render_table(report).split()) and f"> {line}" in render_markdown(report)
    assert f"<p class='note'>{escape(line)}</p>" in render_html(report)
    outcomes = {str(it.id): data.outcome(it) for it in data.items}
    (status_cut,) = member_cuts(list(data.items), data.sample, outcomes, family=data.spec.task_family.name,
                                is_error=lambda gold, original: label_error(gold, original, data.spec))
    assert status_cut.to_json() == figure  # what ``review status`` prints: the same line and figure


LS_CONFIG = """<View>
  <Text name="passage" value="$passage"/>
  <Choices name="verdict" toName="passage"><Choice value="0"/><Choice value="1"/></Choices>
</View>"""


@pytest.mark.labelstudio
def test_review_status_prints_the_members_cut(label_studio, record_verdicts, tmp_path):
    """``label-audit review status`` on real Label Studio: the census control sample pushed, two experts answer
    every task with the truth, and the status (text and --json) carries the member's line beside the ensemble's."""
    import json

    from typer.testing import CliRunner

    from backend.cli import app
    from backend.labelstudio.client import iter_tasks
    from backend.review.push import push_review
    from backend.review.review_store import ROUND_REVIEW
    from backend.review.sample_push import SampleRequest
    from backend.review.source import REF_FIELD
    from tests.support.labelstudio import unique_email

    ls = label_studio
    planned, planned_truth = member_project()
    project, ids = ls.create_project(LS_CONFIG, [{"passage": f"passage {k}", "label": "1"}
                                                 for k in range(len(planned))])
    results = [replace(r, id=str(t)) for r, t in zip(planned, ids)]
    truth = {str(t): planned_truth[str(r.id)] for r, t in zip(planned, ids)}
    ledger, store = record_verdicts(project, results, config=LS_CONFIG, label_field="label")
    experts = [unique_email("cl-a"), unique_email("cl-b")]
    push = push_review(ls.client, store, ledger, project_id=project, experts=experts,
                       sample=SampleRequest(len(ids), design="random", seed=1), seed=1)
    uids = {p.expert: p.expert_user_id for p in store.projects(str(project), round=ROUND_REVIEW)}
    by_ref = {a.ref: a.task_id for a in store.assignments(str(project))}
    for email in experts:
        for task in iter_tasks(ls.client, push.projects[email]):
            answer = [{"from_name": "verdict", "to_name": "passage", "type": "choices",
                       "value": {"choices": [truth[by_ref[task.data[REF_FIELD]]]]}}]
            ls.client.annotations.create(id=task.id, result=answer, completed_by=uids[email])

    env = {"LABEL_STUDIO_URL": ls.url, "LABEL_STUDIO_API_KEY": ls.token, "LABEL_AUDIT_REVIEW_URL": None,
           "LABEL_AUDIT_EXPERT_INSTANCES": None, "DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}"}

    def status(*extra: str) -> str:
        result = CliRunner().invoke(app, ["review", "status", "--project", str(project), *extra], env=env,
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    shown = json.loads(status("--json"))
    (member,) = shown["member_cuts"]
    assert member["member"] == CL and (member["n"], member["wrong"], member["right"]) == (40, 10, 30)
    assert (member["would_flag_more"], member["would_unflag"], member["scored"]) == (8, 1, 40)
    scores = [(_member_score(r), truth[str(r.id)] == "0") for r in results if _member_score(r) is not None]
    top_right, low_wrong = max(s for s, w in scores if not w), min(s for s, w in scores if w)
    assert member["cut"] == pytest.approx((top_right + low_wrong) / 2, abs=1e-4)
    assert shown["fitted_cut"]["n"] == 41  # the ensemble's cut rests on every settled item
    text = status()
    assert member["line"].startswith(f"{CL_SUBJECT}: its 1 − P(label) ≥ {member['cut']:.2f} (isotonic, 40 ")
    assert f"{shown['fitted_cut']['line']}\n{member['line']}\n" in text
