"""QuestionEngine: each label is judged by an unchanged Engine, and the item is their assembly.

Uses the TEST-ONLY HashTestProvider (tests/backend/hash_provider.py; not an LLM, it judges nothing) to
check bookkeeping: one engine per question gives the same per-question verdicts as a plain Engine run
on that question's spec, input order and errors are kept, the cache serves a rerun, and call counts add up.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from backend.scoring.cache import CallCache
from backend.task.dataset import ItemError, item_from_record
from backend.scoring.engine import Engine, EngineConfig
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.members import build_members, parse_member_arg
from backend.scoring.question_engine import QuestionEngine, make_engine
from backend.task.spec import load_spec
from tests.backend.hash_provider import HashTestProvider
from tests.backend.task.templates import LABELS, TOPICS_MULTI

SPEC = spec_from_label_config(TOPICS_MULTI)


@pytest.fixture()
def cache(tmp_path):
    c = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    yield c
    c.close()


def members(provider):
    return build_members([parse_member_arg(f"hash:{provider.model}")], SPEC, provider_factory=lambda e: provider)


def entries(n):
    out = [item_from_record({"id": f"i{k}", "text": f"text {k}", "label": list(LABELS[: k % 3])}, SPEC)
           for k in range(n)]
    out.insert(2, ItemError(id=None, reason="bad_label", detail="label x is not in the label set", line=3))
    return out


def test_each_question_is_judged_as_a_plain_engine_judges_it(cache, tmp_path):
    provider = HashTestProvider()
    team = members(provider)
    engine = make_engine(SPEC, team, cache=cache, config=EngineConfig(concurrency=2))
    assert isinstance(engine, QuestionEngine) and isinstance(make_engine(load_spec("likert"), build_members(
        [parse_member_arg("hash:h")], load_spec("likert"), provider_factory=lambda e: provider), cache=None), Engine)
    inputs = entries(20)  # more than one chunk
    results = list(engine.score(inputs))
    assert [r.id for r in results] == [e.id or "line:3" for e in inputs]
    assert results[2].reason == "bad_label" and results[2].prediction is None
    n_prompts = len(team)
    assert engine.stats.llm_calls == 20 * len(LABELS) * n_prompts == provider.total_calls
    assert engine.stats.items == 21 and engine.stats.errors["bad_label"] == 1
    scored = [r for r in results if r.error is None]
    for q_index, question in enumerate(engine.questions):
        plain = Engine(question.spec, team, cache=None, config=EngineConfig(concurrency=2))
        asked = [e for e in inputs if not isinstance(e, ItemError)]
        asked = [replace(item, original=SPEC.task_family.question_original(SPEC, question, item.original))
                 for item in asked]
        for res, ref in zip(scored, plain.score(asked)):
            q = res.questions[q_index]
            assert (q.id, q.prediction, q.flagged) == (question.key, ref.prediction, ref.flagged)
            assert q.confidence == pytest.approx(ref.confidence)
            assert res.probs[question.key] == pytest.approx(ref.probs["yes"])
    for res in scored:
        assert res.flagged == any(q.flagged for q in res.questions)
        assert SPEC.task_family.split(SPEC, res.prediction) == {q.id: q.prediction for q in res.questions}
    again = make_engine(SPEC, team, cache=cache, config=EngineConfig(concurrency=2))
    rerun = list(again.score(inputs))
    assert again.stats.llm_calls == 0 and again.stats.cache_hits == 20 * len(LABELS) * n_prompts
    assert [r.prediction for r in rerun] == [r.prediction for r in results]
