"""A multi-label task's yes/no questions asked in one or two orders of their options (issue 42).

The setting (``LABEL_AUDIT_MULTILABEL_ORDERS``, 1 or 2, default 1) is checked when the settings load and reaches
the spec through ``Settings.spec_options()``; the second order's prompt lists "A. No" before "B. Yes"; a judge
that always answers ``A`` (tests/support/position_judge.py, TEST-ONLY) gives P(yes) 1.0 asked once and 0.5 over
both orders, averaged by the engine's own order merging; the first order is the one-order question (same call
keys: a run in two orders after one in one order calls only the second order); the model version differs.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

import pytest

from backend.config.settings import Settings
from backend.families.multilabel import NO, YES
from backend.labelstudio.projectspec import spec_from_label_config
from backend.providers.base import ClassDistribution
from backend.scoring.cache import CallCache
from backend.scoring.engine import Engine
from backend.scoring.members import ensemble_fingerprint, parse_member_arg
from backend.scoring.question_engine import QuestionEngine, make_engine
from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.task.multilabel_orders import EXTRA_KEY, multilabel_orders_of, with_multilabel_orders
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.task.templates import LABELS, TOPICS_MULTI
from tests.support.position_judge import LetterBiasedJudge, team

ONE_PROMPT = ("generic-annotator",)
ITEMS = [Item(id="n1", original='["Sports"]', fields={"text": "The striker scored twice in the final."}),
         Item(id="n2", original="[]", fields={"text": "The senate passed the budget bill."})]


def spec_with(n_orders: int | None):
    return spec_from_label_config(TOPICS_MULTI, multilabel_orders=n_orders)


@pytest.fixture()
def cache(tmp_path):
    c = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    yield c
    c.close()


def test_the_setting_is_one_by_default_and_only_one_or_two_load():
    assert Settings.from_env({}).multilabel_orders == 1
    assert Settings.from_env({"LABEL_AUDIT_MULTILABEL_ORDERS": " 2 "}).multilabel_orders == 2
    assert Settings.from_env({}, multilabel_orders=2).spec_options()["multilabel_orders"] == 2
    for bad in ("0", "3", "two", "1.5"):
        with pytest.raises(ValueError, match=r"LABEL_AUDIT_MULTILABEL_ORDERS must be one of 1, 2"):
            Settings.from_env({"LABEL_AUDIT_MULTILABEL_ORDERS": bad})
    with pytest.raises(ValueError, match="one of 1, 2"):
        Settings(multilabel_orders=3)
    with pytest.raises(ValueError, match="one of 1, 2"):
        spec_from_label_config(TOPICS_MULTI, multilabel_orders=4)


def test_one_order_is_the_spec_as_derived_before_and_two_reach_the_spec_from_the_settings():
    default = spec_with(None)
    assert EXTRA_KEY not in default.extra and spec_with(1) == default and multilabel_orders_of(default) == 1
    assert [q.key for q in default.task_family.questions(default)] == list(LABELS)
    two = spec_from_label_config(TOPICS_MULTI, **Settings.from_env({"LABEL_AUDIT_MULTILABEL_ORDERS": "2"}).spec_options())
    assert two.extra[EXTRA_KEY] == 2 and with_multilabel_orders(default, 2) == two
    assert with_multilabel_orders(two, 1) == default
    keys = [q.key for q in two.task_family.questions(two)]
    assert keys == [k for lab in LABELS for k in (lab, f"{lab}#o1")]
    # --labels ... --family multilabel takes it too; a single-choice spec ignores it
    assert generic_spec(labels=LABELS, fields=["text"], family="multilabel", multilabel_orders=2).extra[EXTRA_KEY] == 2
    assert EXTRA_KEY not in generic_spec(labels=["a", "b"], fields=["text"], multilabel_orders=2).extra


def _options(prompt: str) -> list[tuple[str, str]]:
    return re.findall(r"^([AB])\. (Yes|No), \"", prompt, flags=re.MULTILINE)


def test_the_second_order_shows_no_first_and_the_first_order_is_the_one_order_prompt():
    one, two = spec_with(1), spec_with(2)
    judge = LetterBiasedJudge(share=1.0)
    asked_once = {q.key: q for q in one.task_family.questions(one)}
    for question in two.task_family.questions(two):
        member = team(question.spec, judge, prompts=ONE_PROMPT)[0]
        prompt = Engine(question.spec, [member], cache=None).prompt_for(member, ITEMS[0])
        label = question.key.split("#")[0]
        if question.reorders:
            assert _options(prompt) == [("A", "No"), ("B", "Yes")] and question.key == f"{label}#o1"
            assert question.spec.probs_by_label({"A": 1.0, "B": 0.0}) == {YES: 0.0, NO: 1.0}  # A is "no" here
        else:
            assert _options(prompt) == [("A", "Yes"), ("B", "No")]
            alone = Engine(asked_once[label].spec, [member], cache=None)
            assert alone.prompt_for(member, ITEMS[0]) == prompt  # the very prompt asked with one order
            assert alone.key_for(member, prompt) == Engine(question.spec, [member], cache=None).key_for(member, prompt)


def test_a_judge_that_always_answers_a_gets_yes_asked_once_and_one_half_over_both_orders(cache):
    judge = LetterBiasedJudge(share=1.0)  # every answer: all its mass on the letter A
    one, two = spec_with(1), spec_with(2)
    once = list(make_engine(one, team(one, judge, prompts=ONE_PROMPT), cache=cache).score(ITEMS))
    engine = make_engine(two, team(two, judge, prompts=ONE_PROMPT), cache=cache)
    assert isinstance(engine, QuestionEngine) and len(engine.engines) == 2 * len(LABELS)
    both = list(engine.score(ITEMS))
    # the first order's calls come from the one-order run: only the second order is called
    assert engine.stats.llm_calls == len(ITEMS) * len(LABELS) and cache.count() == 2 * len(ITEMS) * len(LABELS)
    for r1, r2, item in zip(once, both, ITEMS):
        assert r1.probs == {lab: 1.0 for lab in LABELS} and r1.prediction == one.normalize_label(list(LABELS))
        assert r2.probs == pytest.approx({lab: 0.5 for lab in LABELS})
        assert r1.flagged and not r2.flagged  # the lean asserted every label; averaged, nothing is confident
        assert [q.id for q in r2.questions] == list(LABELS)  # one verdict per label, as with one order
        for q in r2.questions:
            assert [o.id for o in q.questions] == ["o0", "o1"]
            assert [o.probs[YES] for o in q.questions] == [1.0, 0.0]  # A is yes, then no
            assert q.original == (YES if q.id in item.original else NO)
        assert {m.member_id for m in r2.members} == {f"{m.id}#{lab}" for m in engine.members for lab in LABELS}
        assert all(m.probs == pytest.approx({YES: 0.5, NO: 0.5}) for m in r2.members)


class _PerLabel:
    """TEST-ONLY judge whose answer does not read the option order (as the confident-learning member's): it says
    yes to "Sports" and no to every other label, whatever letter each stands under."""

    name, model, reads_order = "per-label", "none", False

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        yes = 0.9 if '"Sports" applies' in prompt else 0.1
        return ClassDistribution(probs={"A": yes, "B": 1.0 - yes}, raw_mass=1.0, method="logits")

    def cache_params(self) -> Mapping[str, Any]:
        return {"kind": "per-label"}


def test_a_member_that_does_not_read_the_order_answers_each_label_once_for_its_own_label(cache):
    two = spec_with(2)
    engine = make_engine(two, team(two, _PerLabel(), prompts=ONE_PROMPT), cache=cache)
    (result,) = engine.score(ITEMS[1:])
    assert engine.stats.llm_calls == len(LABELS)  # the second orders are not asked
    for q in result.questions:  # each label's second order repeats that label's first, not the item's first
        want = 0.9 if q.id == "Sports" else 0.1
        assert [o.probs[YES] for o in q.questions] == pytest.approx([want, want]) and q.probs[YES] == pytest.approx(want)


def test_the_model_version_changes_with_the_orders_and_the_default_keeps_its_own():
    entries = (parse_member_arg("local:smollm2"),)
    one, two = spec_with(1), spec_with(2)
    assert EnsembleConfig(members=entries).model_version(one) != EnsembleConfig(members=entries).model_version(two)
    assert two.task_family.prompt_params(two)[EXTRA_KEY] == "2" and EXTRA_KEY not in one.task_family.prompt_params(one)
    judge = LetterBiasedJudge()
    assert ensemble_fingerprint(team(one, judge), one) != ensemble_fingerprint(team(two, judge), two)
