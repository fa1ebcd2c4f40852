"""Early exit inside the engine: same flags and predictions as the full ensemble, fewer calls.

Uses test-only providers (hash answers: weak and scattered; the synthetic judge: confident, mostly
agreeing), because the property under test is bookkeeping, not judging.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.scoring.cache import CallCache
from backend.task.dataset import read_items
from backend.scoring.engine import Engine, EngineConfig
from backend.task.spec import load_spec
from backend.scoring.members import build_members, parse_member_arg
from tests.backend.hash_provider import HashTestProvider
from tests.support.synthetic_judge import SyntheticJudge

SAMPLES = Path(__file__).resolve().parents[3] / "backend" / "data"


def _members(spec, *providers):
    by_model = {p.model: p for p in providers}
    entries = [parse_member_arg(f"test:{p.model}") for p in providers]
    return build_members(entries, spec, provider_factory=lambda e: by_model[e.model])


@pytest.mark.parametrize("spec_name, sample", [("factual-consistency", "sample_factual_consistency.jsonl"),
                                               ("relevance", "sample_relevance.jsonl")])
def test_early_exit_matches_the_full_ensemble_and_marks_stopped_items(tmp_path, spec_name, sample):
    spec = load_spec(spec_name)
    items = list(read_items(SAMPLES / sample, spec))
    truth = {str(i.fields[next(iter(spec.fields))]): spec.labels[k % len(spec.labels)] for k, i in enumerate(items)
             if hasattr(i, "fields")}
    members = _members(spec, HashTestProvider(), SyntheticJudge(truth, model="judge-a"),
                       SyntheticJudge(truth, model="judge-b", wrong=0.2))
    full_engine = Engine(spec, members, cache=None, config=EngineConfig(threshold=0.3))
    full = list(full_engine.score(items))
    early_engine = Engine(spec, members, cache=None, config=EngineConfig(threshold=0.3, early_exit=True))
    early = list(early_engine.score(items))
    assert [(r.id, r.prediction, r.flagged, r.insufficient) for r in early] == \
        [(r.id, r.prediction, r.flagged, r.insufficient) for r in full]
    stats = early_engine.stats
    assert stats.early_exit_skipped > 0  # the confident judges settle items before the last member
    assert stats.llm_calls + stats.early_exit_skipped == full_engine.stats.llm_calls
    assert stats.stopped_early == sum(r.stopped_early for r in early)
    for r in early:
        assert len(r.members) + (len(members) - len(r.members)) == len(members)
        assert r.stopped_early == (len(r.members) < len(members))


def test_early_exit_uses_cached_answers_first_and_never_calls_twice(tmp_path):
    spec = load_spec("factual-consistency")
    items = list(read_items(SAMPLES / "sample_factual_consistency.jsonl", spec))
    members = _members(spec, HashTestProvider(), HashTestProvider(model="hash-2"))
    cache = CallCache(f"sqlite:///{tmp_path / 'c.sqlite'}")
    try:
        first = Engine(spec, members, cache=cache, config=EngineConfig(early_exit=True))
        list(first.score(items))
        again = Engine(spec, members, cache=cache, config=EngineConfig(early_exit=True))
        list(again.score(items))
        assert again.stats.llm_calls == 0  # the settled items settle again from the cache alone
    finally:
        cache.close()
