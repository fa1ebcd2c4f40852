"""Contextual calibration (backend.scoring.contextual_calibration): each judge's answers divided by its content-free prior.

The arithmetic (p / p_cf, renormalised; uniform prior = no change; an answer equal to the prior = uniform);
the engine asks every member the content-free items once per option order, through the cache; a pure
letter preference (tests/support/position_judge.py, TEST-ONLY) is cancelled; the item calls' cache keys do
not change with the mode but the model version does; on the embedded model the calibrated answer is exactly
the raw one divided by the mean of its two content-free answers.
"""

from __future__ import annotations

import pytest

from backend.scoring.cache import CallCache
from backend.scoring.contextual_calibration import (CONTENT_FREE, FLOOR, calibrate, calibration_of, content_free_items,
                                         mean_distribution, resolve_calibration, with_calibration)
from backend.scoring.engine import Engine
from backend.scoring.members import ensemble_fingerprint
from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.task.option_orders import order_questions
from backend.scoring.question_engine import make_engine
from tests.support.position_judge import LetterBiasedJudge, team

LABELS = ["sport", "politics", "science"]
SHOWN = ["Sport news", "Politics news", "Science news"]
ITEMS = [Item(id=f"i{k}", original=LABELS[k % 3], fields={"text": text}) for k, text in enumerate(
    ["The striker scored twice in the final.", "The senate passed the budget bill.",
     "The telescope found water on a distant planet."])]


def spec_with(n_orders: int, mode: str):
    return generic_spec(labels=LABELS, fields=["text"], shown=SHOWN, question="Which section does this go in?",
                        option_orders=n_orders, calibration=mode)


@pytest.fixture()
def cache(tmp_path):
    c = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    yield c
    c.close()


def test_calibrate_divides_by_the_prior_and_renormalises():
    probs = {"a": 0.5, "b": 0.3, "c": 0.2}
    got = calibrate(probs, {"a": 0.5, "b": 0.25, "c": 0.25}, ["a", "b", "c"])
    assert got == pytest.approx({"a": 1.0 / 3.0, "b": 1.2 / 3.0, "c": 0.8 / 3.0}, abs=1e-12)
    assert calibrate(probs, {lab: 1 / 3 for lab in "abc"}, "abc") == pytest.approx(probs, abs=1e-12)
    assert calibrate(probs, probs, "abc") == pytest.approx({lab: 1 / 3 for lab in "abc"}, abs=1e-12)
    floored = calibrate({"a": 0.5, "b": 0.5}, {"a": 1.0, "b": 0.0}, "ab")  # a zero prior is floored, not infinite
    assert floored["b"] == pytest.approx(1.0 / (1.0 + FLOOR)) and floored["a"] > 0
    with pytest.raises(ValueError, match="no probability mass"):
        calibrate({"a": 0.0, "b": 0.0}, {"a": 0.5, "b": 0.5}, "ab")


def test_the_prior_is_the_mean_of_the_content_free_answers():
    assert mean_distribution([{"a": 1.0, "b": 0.0}, {"a": 0.5, "b": 0.5}], "ab") == {"a": 0.75, "b": 0.25}
    items = content_free_items(generic_spec(labels=LABELS, fields={"p": "premise", "h": "hypothesis"}))
    assert [dict(it.fields) for it in items] == [{"p": text, "h": text} for text in CONTENT_FREE]


def test_the_mode_comes_from_the_option_else_the_settings_else_the_default(monkeypatch):
    from backend.common import defaults
    from backend.config.settings import Settings

    monkeypatch.setenv("LABEL_AUDIT_CALIBRATION", "content-free")  # read at an edge only: below it the default
    assert resolve_calibration() == defaults.CALIBRATION
    assert calibration_of(generic_spec(labels=LABELS, fields=["text"])) == defaults.CALIBRATION
    mode = Settings.from_env().calibration
    assert calibration_of(generic_spec(labels=LABELS, fields=["text"], calibration=mode)) == "content-free"
    assert calibration_of(generic_spec(labels=LABELS, fields=["text"], calibration="off")) == "none"
    with pytest.raises(ValueError, match="LABEL_AUDIT_CALIBRATION"):
        Settings.from_env({"LABEL_AUDIT_CALIBRATION": "sometimes"})
    with pytest.raises(ValueError, match="LABEL_AUDIT_CALIBRATION"):
        generic_spec(labels=LABELS, fields=["text"], calibration="sometimes")
    binary = generic_spec(labels=["yes", "no"], fields=["text"], calibration="none")
    assert calibration_of(with_calibration(binary, "content-free")) == "content-free"
    multi = generic_spec(labels=LABELS, fields=["text"], family="multilabel", calibration="content-free")
    assert calibration_of(multi) == "none"  # no lettered options: each label is its own yes/no question


def test_a_pure_letter_preference_is_cancelled_and_the_prior_is_asked_once_per_member_and_order(cache):
    judge = LetterBiasedJudge(share=0.9)  # answers A whatever the item says
    spec = spec_with(2, "content-free")
    members = team(spec, judge)
    engine = make_engine(spec, members, cache=cache)
    results = list(engine.score(ITEMS))
    for result in results:
        for member in result.members:
            assert member.probs == pytest.approx({lab: 1 / 3 for lab in LABELS}, abs=1e-12)
        assert not result.flagged
    n_orders, n_members = 2, len(members)
    content_free = [p for p in judge.prompts if "N/A" in p]
    assert len(content_free) == n_orders * n_members  # one "N/A" item per member x order ("" the other)
    assert engine.stats.llm_calls == n_orders * n_members * (len(ITEMS) + len(CONTENT_FREE)) == len(judge.prompts)
    assert [sorted(e.priors) for e in engine.engines] == [sorted(m.id for m in members)] * n_orders
    list(engine.score(ITEMS))  # the same engine asks nothing again
    list(make_engine(spec, members, cache=cache).score(ITEMS))  # a new one finds everything in the cache
    assert len(judge.prompts) == n_orders * n_members * (len(ITEMS) + len(CONTENT_FREE))


def test_the_items_calls_are_shared_with_an_uncalibrated_run_but_the_model_version_is_not(cache):
    judge = LetterBiasedJudge(share=0.3)
    plain, calibrated = spec_with(1, "none"), spec_with(1, "content-free")
    members = team(plain, judge)
    one = Engine(plain, members, cache=cache)
    two = Engine(calibrated, team(calibrated, judge), cache=cache)
    for member in members:
        assert one.key_for(member, one.prompt_for(member, ITEMS[0])) == two.key_for(member, two.prompt_for(member, ITEMS[0]))
    assert ensemble_fingerprint(members, plain) != ensemble_fingerprint(team(calibrated, judge), calibrated)
    list(one.score(ITEMS))
    assert one.priors == {} and not any("N/A" in p for p in judge.prompts)
    list(two.score(ITEMS))
    assert two.stats.llm_calls == len(members) * len(CONTENT_FREE)  # the items came from the cache
    assert [q.spec.extra["calibration"] for q in order_questions(spec_with(2, "content-free"))] == ["content-free"] * 2


@pytest.mark.llm
def test_the_embedded_model_is_calibrated_by_its_own_content_free_answers_once_per_order(smollm2_path, cache):
    from backend.providers.local_gguf import LocalGGUFProvider

    counted = LetterBiasedJudge(LocalGGUFProvider(str(smollm2_path)), share=0.0)  # the real model, calls counted
    items, one = ITEMS[:2], ("generic-question",)  # few calls: the model is real
    spec = spec_with(2, "content-free")
    members = team(spec, counted, prompts=one)
    engine = make_engine(spec, members, cache=cache)
    calibrated = list(engine.score(items))
    assert len(counted.prompts) == 2 * (len(items) + len(CONTENT_FREE))  # 2 orders x (items + content-free)
    raw_spec = spec_with(2, "none")
    raw = list(make_engine(raw_spec, team(raw_spec, counted, prompts=one), cache=cache).score(items))
    assert len(counted.prompts) == 2 * (len(items) + len(CONTENT_FREE))  # the raw run came from the cache
    for question, sub in zip(order_questions(spec), engine.engines):
        prior = sub.priors[members[0].id]
        direct = Engine(question.spec, members, cache=cache)
        asked = [direct.key_for(members[0], direct.prompt_for(members[0], it)) for it in content_free_items(spec)]
        hits = cache.get_many(asked)
        assert len(hits) == len(CONTENT_FREE)
        by_label = [question.spec.probs_by_label(hits[k][0].probs) for k in asked]
        by_label = [{lab: p / sum(d.values()) for lab, p in d.items()} for d in by_label]
        assert prior == pytest.approx(mean_distribution(by_label, LABELS), abs=1e-9)
    for cal, plain in zip(calibrated, raw):
        per_order = [calibrate(q.members[0].probs, sub.priors[members[0].id], LABELS)
                     for q, sub in zip(plain.questions, engine.engines)]
        assert cal.members[0].probs == pytest.approx(mean_distribution(per_order, LABELS), abs=1e-9)
    again = list(make_engine(spec, members, cache=cache).score(items))
    assert len(counted.prompts) == 2 * (len(items) + len(CONTENT_FREE))  # a re-run asks nothing
    assert [r.members[0].probs for r in again] == [r.members[0].probs for r in calibrated]
