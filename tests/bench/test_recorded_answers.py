"""bench/recorded_answers.py: the real judge's cached answers leave the cache for a file and come back unchanged.

A fresh machine has no call cache; a benchmark seeded from the file must find every answer the original run had
(same key, same distribution, same latency), and only the chosen model's answers are kept.
"""

from __future__ import annotations

from backend.providers.base import ClassDistribution
from backend.scoring.cache import CallCache
from tests.support.bench_module import load_bench_module


def test_exported_answers_seed_a_fresh_cache_exactly(tmp_path):
    recorded = load_bench_module("recorded_answers")
    source = CallCache(f"sqlite:///{tmp_path / 'source.sqlite'}")
    kept = {"a" * 64: (ClassDistribution({"A": 0.7, "B": 0.3}, 0.9, "logits", " A"), 2.5),
            "b" * 64: (ClassDistribution({"A": 0.1, "B": 0.9}, 0.8, "logits", " B"), None)}
    for key, (dist, latency) in kept.items():
        source.put(key, dist, provider="local", model="judge", template_id="generic-question", template_version="1",
                   latency_s=latency)
    source.put("c" * 64, ClassDistribution({"A": 0.5, "B": 0.5}, 1.0, "logits"), provider="local", model="other",
               template_id="generic-question", template_version="1")
    first, second = tmp_path / "one.jsonl.gz", tmp_path / "two.jsonl.gz"
    assert recorded.export(source, first, model="judge") == 2
    recorded.export(source, second, model="judge")
    assert first.read_bytes() == second.read_bytes()  # the same answers, the same file

    fresh = CallCache(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    assert recorded.seed(fresh, first) == 2
    assert fresh.get_many(list(kept) + ["c" * 64]) == {k: (d.__class__.from_dict(d.to_dict()), lat)
                                                       for k, (d, lat) in kept.items()}
    assert recorded.seed(fresh, first) == 2 and fresh.count() == 2  # seeding again adds nothing
