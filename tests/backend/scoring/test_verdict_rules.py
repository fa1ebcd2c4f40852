"""The verdict rules of issue 11 (fixes 3-5): flag rule from the spec, quorum, strict threshold, ties.

Each test here failed on the code before the fix it names.
"""

from __future__ import annotations

import pytest

from backend.scoring.ensemble import Quorum, VerdictRule, decide, disagrees, flag_rule, verdict
from backend.scoring.results import ItemResult
from backend.task.spec import load_spec, spec_from_mapping

BIN = load_spec("factual-consistency")
LIK = load_spec("likert")
REL = load_spec("relevance")


# -- fix 3: the flag rule belongs to the spec ------------------------------------------------------


def test_relevance_flags_a_confident_one_versus_two_across_the_relevance_boundary():
    """Seed 003: 2 and 3 are relevant, 0 and 1 are not; 1 vs 2 is a relevant/non-relevant disagreement."""
    probs = {"0": 0.01, "1": 0.02, "2": 0.95, "3": 0.02}
    assert decide(probs, "1", REL).flagged
    assert not decide(probs, "3", REL).flagged  # 2 vs 3: both relevant
    assert not decide({"0": 0.95, "1": 0.02, "2": 0.02, "3": 0.01}, "1", REL).flagged  # both non-relevant
    assert decide({"0": 0.95, "1": 0.02, "2": 0.02, "3": 0.01}, "3", REL).flagged


def test_likert_keeps_the_distance_rule():
    probs = {"1": 0.0, "2": 0.95, "3": 0.05, "4": 0.0, "5": 0.0}
    assert not decide(probs, "3", LIK).flagged
    assert decide(probs, "4", LIK).flagged
    assert flag_rule(LIK).delta == 1 and flag_rule(LIK).boundary is None
    assert flag_rule(REL).boundary == "2"


def test_a_custom_spec_states_its_rule_and_the_label_studio_spec_borrows_the_builtin_one():
    custom = spec_from_mapping({"name": "grades", "family": "ordinal", "labels": ["a", "b", "c", "d"],
                                "fields": {"x": "x"}, "flag": {"boundary": "c", "delta": 2}})
    assert disagrees("b", "c", custom)  # crosses the boundary
    assert disagrees("a", "d", custom)  # distance 3 > 2
    assert not disagrees("c", "d", custom)
    from_ls = spec_from_mapping({"name": "relevance", "family": "ordinal", "labels": ["0", "1", "2", "3"],
                                 "fields": {"query": "query", "passage": "passage"}})
    assert flag_rule(from_ls) == flag_rule(REL)
    with pytest.raises(ValueError):
        flag_rule(spec_from_mapping({"name": "g", "family": "ordinal", "labels": ["1", "2", "3"],
                                     "fields": {"x": "x"}, "flag": {"boundary": "9"}}))


def test_gold_rule_uses_the_same_flag_rule_as_the_verdict():
    """A 1 vs 2 relevance item is a disagreement for the gold rule too: experts decide, not the original."""
    from backend.review.outcome import GoldStatus, decide_outcome

    item = ItemResult(id="a", original="1", prediction="2", confidence=0.95, probs=None, flagged=True)
    assert decide_outcome(item, REL, experts=["e1"], routed=True).status is GoldStatus.PENDING
    agreeing = ItemResult(id="b", original="2", prediction="3", confidence=0.95, probs=None, flagged=False)
    assert decide_outcome(agreeing, REL, experts=["e1"]).status is GoldStatus.AGREED_WITH_ENSEMBLE


# -- fix 4: quorum ----------------------------------------------------------------------------------


def _members(n_models: int, n_prompts: int) -> list[str]:
    return [f"m{i}" for i in range(n_models) for _ in range(n_prompts)]


def test_too_few_answers_is_insufficient_not_flagged():
    models = _members(2, 4)
    confident_zero = {"0": 0.99, "1": 0.01}
    answers = [confident_zero, None, None, None, None, None, None, None]  # one of eight answered
    v = verdict(answers, models, "1", VerdictRule(BIN))
    assert v is not None and v.insufficient and not v.flagged and v.prediction == "0"
    answers = [confident_zero] * 4 + [None] * 4  # half answered, but model m1 not at all
    assert verdict(answers, models, "1", VerdictRule(BIN)).insufficient
    answers = [confident_zero] * 3 + [None] + [confident_zero] + [None] * 3  # 4 of 8, both models
    v = verdict(answers, models, "1", VerdictRule(BIN))
    assert not v.insufficient and v.flagged
    relaxed = Quorum(min_share=0.1, every_model=False)
    assert verdict([confident_zero] + [None] * 7, models, "1", VerdictRule(BIN, quorum=relaxed)).flagged
    assert verdict([None] * 8, models, "1", VerdictRule(BIN)) is None


# -- fix 5: strict threshold, ties never flagged ----------------------------------------------------


def test_flag_needs_confidence_strictly_above_the_threshold():
    assert not decide({"0": 0.8, "1": 0.2}, "1", BIN, threshold=0.8).flagged
    assert decide({"0": 0.8, "1": 0.2}, "1", BIN, threshold=0.79).flagged


@pytest.mark.parametrize("original", ["0", "1"])
def test_a_tie_is_never_a_confident_disagreement_whichever_the_label(original):
    d = decide({"0": 0.5, "1": 0.5}, original, BIN, threshold=0.0)
    assert not d.flagged and d.tie
    top_tie = {"1": 0.2, "2": 0.4, "3": 0.0, "4": 0.0, "5": 0.4}  # 2 and 5 tie at the top
    assert not decide(top_tie, "5", LIK, threshold=0.0).flagged
