"""A single-choice question asked in several cyclic orders of its options (backend.task.option_orders).

Letters map back to the labels the prompt shows under them; a judge with a planted preference for the
letter A (tests/support/position_judge.py, TEST-ONLY, around the real embedded model or alone) is
cancelled exactly when every rotation is asked; each order is its own prompt and cache key; the model
version changes with the number of orders.
"""

from __future__ import annotations

import re

import pytest

from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.scoring.cache import CallCache
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.members import ensemble_fingerprint, parse_member_arg, spec_fingerprint
from backend.task.option_orders import order_questions, resolve_orders, rotated_spec, shifts, with_option_orders
from backend.scoring.question_engine import QuestionEngine, make_engine
from tests.support.position_judge import LetterBiasedJudge, team

LABELS = ["sport", "politics", "science"]
SHOWN = ["Sport news", "Politics news", "Science news"]
ITEMS = [Item(id=f"i{k}", original=LABELS[k % 3], fields={"text": text}) for k, text in enumerate(
    ["The striker scored twice in the final.", "The senate passed the budget bill.",
     "The telescope found water on a distant planet.", "The coach was sacked after the defeat."])]


def spec_with(n_orders: int):
    return generic_spec(labels=LABELS, fields=["text"], shown=SHOWN, question="Which section does this go in?",
                        option_orders=n_orders)


@pytest.fixture()
def cache(tmp_path):
    c = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    yield c
    c.close()


def test_shifts_are_evenly_spaced_rotations():
    assert shifts(6, 1) == (0,) and shifts(6, 2) == (0, 3) and shifts(6, 3) == (0, 2, 4)
    assert shifts(3, 3) == (0, 1, 2) and shifts(3, 9) == (0, 1, 2)
    with pytest.raises(ValueError):
        shifts(3, 0)
    with pytest.raises(ValueError, match="integer >= 1"):
        resolve_orders("two")


def test_each_order_shows_every_label_under_the_letter_that_maps_back_to_it():
    spec = spec_with(3)
    engine_prompts = []
    for question in order_questions(spec):
        member = team(question.spec, LetterBiasedJudge())[0]
        prompt = Engine(question.spec, [member], cache=None).prompt_for(member, ITEMS[0])
        engine_prompts.append(prompt)
        shown_under = dict(re.findall(r"^([A-C])\. (.+)$", prompt, flags=re.MULTILINE))
        assert sorted(shown_under) == ["A", "B", "C"]
        for letter, text in shown_under.items():
            label = LABELS[SHOWN.index(text)]
            answer = question.spec.probs_by_label({t: float(t == letter) for t in "ABC"})
            assert answer[label] == 1.0 and sum(answer.values()) == 1.0
    assert len(set(engine_prompts)) == 3  # the order enters the prompt
    assert [q.spec.labels for q in order_questions(spec)] == [tuple(LABELS)] * 3  # class order kept


def test_a_pure_letter_preference_cancels_exactly_over_every_rotation(cache):
    judge = LetterBiasedJudge(share=0.9)
    once = list(make_engine(spec_with(1), team(spec_with(1), judge), cache=cache).score(ITEMS))
    assert all(r.prediction == LABELS[0] and r.probs[LABELS[0]] > 0.9 for r in once)  # the bias decides
    spec = spec_with(3)
    engine = make_engine(spec, team(spec, judge), cache=cache)
    assert isinstance(engine, QuestionEngine)
    results = list(engine.score(ITEMS))
    for result in results:
        assert [q.id for q in result.questions] == ["o0", "o1", "o2"]
        assert result.members[0].probs == pytest.approx({lab: 1 / 3 for lab in LABELS}, abs=1e-12)
        assert not result.flagged


@pytest.mark.llm
def test_a_letter_bias_on_the_real_model_leaves_only_a_constant_over_every_rotation(smollm2_path, cache):
    from backend.providers.local_gguf import LocalGGUFProvider

    model = LocalGGUFProvider(str(smollm2_path))
    items, one = ITEMS[:2], ("generic-question",)  # few calls: the model is real

    def judged(n_orders, share):
        spec = spec_with(n_orders)
        return list(make_engine(spec, team(spec, LetterBiasedJudge(model, share=share), prompts=one),
                                cache=cache).score(items))

    for p, b in zip(judged(3, 0.0), judged(3, 0.6)):
        for lab in LABELS:  # averaged over the orders, the planted bias adds the same share to every label
            assert b.members[0].probs[lab] == pytest.approx(0.4 * p.members[0].probs[lab] + 0.6 / 3, abs=1e-9)
        assert b.prediction == p.prediction
    assert all(r.prediction == LABELS[0] for r in judged(1, 0.6))  # asked once, the letter wins


def test_each_order_is_its_own_cache_entry_and_a_rerun_calls_nothing(cache):
    spec = spec_with(3)
    judge = LetterBiasedJudge(share=0.2)
    members = team(spec, judge)
    engine = make_engine(spec, members, cache=cache)
    keys = {e.key_for(members[0], e.prompt_for(members[0], ITEMS[0])) for e in engine.engines}
    assert len(keys) == 3
    list(engine.score(ITEMS))
    calls = 3 * len(ITEMS) * len(members)  # every prompt of the generic folder, in each order
    assert engine.stats.llm_calls == calls and cache.count() == calls
    again = list(make_engine(spec, members, cache=cache).score(ITEMS))
    assert len(judge.prompts) == calls and all(m.cached for r in again for m in r.members)


def test_the_model_version_changes_with_the_number_of_orders():
    judge = LetterBiasedJudge()
    one, two = spec_with(1), spec_with(2)
    assert ensemble_fingerprint(team(one, judge), one) != ensemble_fingerprint(team(two, judge), two)
    entries = [parse_member_arg("local:smollm2")]
    assert spec_fingerprint(entries, one) != spec_fingerprint(entries, two)
    assert with_option_orders(one, 2).extra == two.extra


def test_ordered_grades_and_label_token_specs_are_asked_once():
    ordinal = generic_spec(labels=["1", "2", "3"], fields=["text"], option_orders=3)
    assert len(ordinal.task_family.questions(ordinal)) == 1
    rotated = rotated_spec(spec_with(1), 1)
    assert rotated.answer_tokens == ("C", "A", "B") and len(order_questions(rotated)) == 1


def test_the_setting_comes_from_the_option_else_the_settings_else_the_default(monkeypatch):
    from backend.common import defaults
    from backend.commands.task_options import resolve_task
    from backend.config.settings import Settings

    assert len(order_questions(generic_spec(labels=LABELS, fields=["text"]))) == defaults.OPTION_ORDERS
    monkeypatch.setenv("LABEL_AUDIT_OPTION_ORDERS", "3")  # read at an edge only: below it the default stays
    assert len(order_questions(generic_spec(labels=LABELS, fields=["text"]))) == defaults.OPTION_ORDERS
    settings = Settings.from_env()
    assert len(order_questions(resolve_task(labels=LABELS, fields="text", **settings.spec_options()))) == 3
    option = Settings.from_env(option_orders=1)  # --option-orders over the environment
    assert len(order_questions(resolve_task(labels=LABELS, fields="text", **option.spec_options()))) == 1
    assert len(order_questions(resolve_task(task="likert", option_orders=3))) == 1  # its own prompts: asked as is
    with pytest.raises(ValueError, match="LABEL_AUDIT_OPTION_ORDERS"):
        Settings.from_env({"LABEL_AUDIT_OPTION_ORDERS": "0"})
    with pytest.raises(ValueError, match="LABEL_AUDIT_OPTION_ORDERS"):
        generic_spec(labels=LABELS, fields=["text"], option_orders=0)
