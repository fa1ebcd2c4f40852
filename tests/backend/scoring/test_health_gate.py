"""The health gate: a member that member health names COLLAPSED leaves the verdict and the flag, decided over all
the results judged together; PENDING, low-mass and all-collapsed members stay.

Result records shaped as the engine writes them go through the real tally, the real gate and the ensemble's own
verdict; every expected figure is recomputed from the inputs here, never hard-coded from a run.
"""

from __future__ import annotations

import pytest

from backend.scoring.ensemble import VerdictRule, verdict
from backend.scoring.health_gate import gate_results, regate
from backend.scoring.member_health import HealthTally
from backend.scoring.results import ItemResult, MemberResult
from backend.task.generic import generic_spec

LABELS = ("A", "B", "C")
SPEC = generic_spec(labels=list(LABELS), fields=["text"])
RULE = VerdictRule(SPEC)
STUCK, GOOD, OTHER = "local:m/stuck@v1", "local:m/good@v1", "local:m/other@v1"


def _probs(top: str, p: float) -> dict[str, float]:
    rest = (1.0 - p) / (len(LABELS) - 1)
    return {lab: (p if lab == top else rest) for lab in LABELS}


def _item(i: int, original: str, answers: dict[str, tuple[str, float]]) -> ItemResult:
    members = tuple(MemberResult(m, probs=_probs(top, p), raw_mass=0.9) for m, (top, p) in answers.items())
    d = verdict([m.probs for m in members], ["local:m"] * len(members), original, RULE)
    return ItemResult(id=str(i), original=original, prediction=d.prediction, confidence=d.confidence,
                      probs=d.probs, flagged=d.flagged, members=members)


def _run(n: int) -> list[ItemResult]:
    """``n`` items, originals a third each; STUCK answers B with 0.99 whatever the item, the others the original
    (OTHER a little less sure): together STUCK drags items whose original is A or C to B."""
    originals = [LABELS[i % 3] for i in range(n)]
    return [_item(i, o, {STUCK: ("B", 0.99), GOOD: (o, 0.6), OTHER: (o, 0.5)}) for i, o in enumerate(originals)]


def test_a_collapsed_member_leaves_the_verdict_and_its_flags_go():
    results = _run(30)
    assert any(r.flagged for r in results) or any(r.prediction == "B" and r.original != "B" for r in results)
    gated, gate = gate_results(results, RULE)
    assert list(gate.left_out) == [STUCK]
    assert "COLLAPSED" in gate.left_out[STUCK] and "100% of 30 items" in gate.left_out[STUCK]
    for before, after in zip(results, gated):
        kept = [m for m in before.members if m.member_id != STUCK]
        expected = verdict([m.probs for m in kept], ["local:m"] * 2, before.original, RULE)
        assert (after.prediction, after.flagged) == (expected.prediction, expected.flagged)
        assert after.confidence == pytest.approx(expected.confidence)
        assert after.members == before.members  # every answer stays recorded
    assert all(r.prediction == r.original for r in gated)  # the two honest members agree with every original


def test_below_the_minimum_the_member_is_pending_and_stays():
    results = _run(HealthTally().rule.min_answers - 1)
    gated, gate = gate_results(results, RULE)
    assert not gate.active and gated == results


def test_every_member_collapsed_leaves_none_out_and_says_so():
    originals = [LABELS[i % 3] for i in range(30)]
    results = [_item(i, o, {STUCK: ("B", 0.9), GOOD: ("C", 0.9)}) for i, o in enumerate(originals)]
    gated, gate = gate_results(results, RULE)
    assert not gate.active and "every member (2) is collapsed" in (gate.note or "")
    assert gated == results


def test_a_family_with_several_questions_is_not_gated():
    multi = generic_spec(labels=list(LABELS), fields=["text"], family="multilabel")
    gated, gate = gate_results(_run(30), VerdictRule(multi))
    assert not gate.active and "multilabel" in (gate.note or "")


def test_an_item_answered_only_by_left_out_members_counts_as_insufficient():
    results = _run(30)
    _, gate = gate_results(results, RULE)
    lone = _item(99, "A", {STUCK: ("B", 0.99)})
    after = regate(lone, gate, RULE)
    assert after.insufficient and not after.flagged
