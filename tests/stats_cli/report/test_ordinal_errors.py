"""An error on an ordinal scale is what the family's flag calls a disagreement (issue 39).

The Likert spec flags a grade only when the ensemble is more than one step from the original (Nahum et al.:
a Likert disagreement is more than one point). An expert's one-step regrade is then no label error either:
not in the confirmed errors, the design estimate, the flags' recall, the active review's calibration or the
triage's P(wrong). Counts below are written in the test.
"""

from __future__ import annotations

import pytest

from backend.review.active import control_sample
from backend.review.outcome import GoldStatus, ReviewOutcome
from backend.review.sampling import Candidate, draw_sample
from backend.review.triage import ItemEvidence, triage
from backend.scoring.ensemble import label_error
from backend.scoring.results import ItemResult
from backend.task.spec import load_spec
from stats_cli.report.sections.errors import errors_section
from stats_cli.sources.audit_data import AuditData, ExpertReview

LIKERT = load_spec("likert")  # 1..5, flagged when |prediction - original| > 1
N = 20
# every original is "3"; the experts regrade 6 items by one step and 3 by two steps or more
GOLD = ["4", "2", "4", "2", "4", "2", "1", "5", "5"] + ["3"] * (N - 9)


def _audit() -> AuditData:
    items, reviews = [], {}
    for i, gold in enumerate(GOLD):
        flagged = abs(int(gold) - 3) > 1
        items.append(ItemResult(id=f"t{i}", original="3", prediction=gold, confidence=0.9,
                                probs={gold: 0.9, "3": 0.1} if gold != "3" else {"3": 1.0}, flagged=flagged))
        reviews[f"t{i}"] = ExpertReview(f"t{i}", round1={"A": gold, "B": gold})
    draw = draw_sample([Candidate(f"t{i}", flagged=items[i].flagged) for i in range(N)], budget=N, design="random",
                       seed=0)
    return AuditData(project="p", spec=LIKERT, items=tuple(items), routed=frozenset(reviews), reviews=reviews,
                     experts=("A", "B"), sample=draw)


def test_the_family_owns_the_error_predicate():
    assert not label_error("4", "3", LIKERT) and label_error("5", "3", LIKERT) and not label_error(None, "3", LIKERT)


def test_a_one_step_regrade_is_no_label_error_in_the_errors_section():
    section = errors_section(_audit())
    assert section.values["floor"]["confirmed_errors"] == 3  # the two-step regrades only (it was 9)
    estimate = section.values["estimate"]  # every item drawn: a census, exact figures
    assert estimate["rate"]["value"] == pytest.approx(3 / N)
    assert estimate["precision"]["value"] == pytest.approx(1.0)
    assert estimate["recall"]["value"] == pytest.approx(1.0)  # was 3 / 9: capped by the one-step regrades


def test_the_active_reviews_control_sample_counts_errors_by_the_same_rule():
    data = _audit()
    outcomes = {str(it.id): ReviewOutcome(str(it.id), "3", it.prediction, 0.9, GOLD[i], GoldStatus.EXPERTS_AGREE)
                for i, it in enumerate(data.items)}
    control = control_sample(data.items, data.sample, outcomes,
                             is_error=lambda gold, original: label_error(gold, original, LIKERT))
    assert int(control.wrong.sum()) == 3
    by_id = dict(zip(control.ids, control.scores))
    assert by_id["t0"] == pytest.approx(0.0) and by_id["t6"] == pytest.approx(0.9)  # "4" is no error, "1" is


def test_the_triages_p_wrong_is_the_posterior_mass_beyond_the_flags_delta():
    grades = list(LIKERT.labels)
    evidence = [ItemEvidence(f"c{k}", grades[k % 5], {},
                             {"judge:x": {grades[k % 5]: 0.9, grades[(k + 1) % 5]: 0.1},
                              "judge:y": {grades[k % 5]: 0.85, grades[(k + 2) % 5]: 0.15}}) for k in range(60)]
    regrade = ItemEvidence("r", "3", {}, {"judge:x": {"4": 0.95, "3": 0.05}, "judge:y": {"4": 0.9, "3": 0.1}})
    exact = triage([*evidence, regrade], labels=grades, flagged=["r"])
    by_rule = triage([*evidence, regrade], labels=grades, flagged=["r"],
                     is_error=lambda gold, original: label_error(gold, original, LIKERT))
    assert exact.items[0].p_wrong > 0.5  # 1 - P("3"): the one-step regrade counted as an error
    posterior = by_rule.posterior["r"]
    assert by_rule.items[0].p_wrong == pytest.approx(posterior.get("1", 0.0) + posterior.get("5", 0.0))
    assert by_rule.items[0].p_wrong < 0.1


def test_the_per_class_share_wrong_and_the_error_pictures_count_by_the_same_rule():
    from stats_cli.report.sections.classes import _domain_rates
    from stats_cli.sources.error_pictures import confirmed_errors

    data = _audit()
    assert sorted(str(it.id) for it, _ in confirmed_errors(data)) == ["t6", "t7", "t8"]
    n, share = _domain_rates(data, list(LIKERT.labels))["3"]  # every original is 3, every item drawn
    assert (n, share) == (N, pytest.approx(3 / N))  # was 9 / N


def test_experts_a_grade_apart_are_said_to_stand_for_their_lower_grade():
    """Grades within delta are agreement (the gold is the lower one): the section says how many items rest on it."""
    data = _audit()
    reviews = dict(data.reviews)
    reviews["t0"] = ExpertReview("t0", round1={"A": "4", "B": "5"})  # a grade apart: settled on "4"
    data = AuditData(project="p", spec=LIKERT, items=data.items, routed=data.routed, reviews=reviews,
                     experts=("A", "B"), sample=data.sample)
    assert data.gold(data.items[0]) == ("4", GoldStatus.EXPERTS_AGREE)
    notes = [n for n in errors_section(data).notes if "lower grade" in n]
    assert len(notes) == 1 and notes[0].startswith("1 item:")
    assert not [n for n in errors_section(_audit()).notes if "lower grade" in n]
