"""Benchmark: calls and wall time with and without early exit, on the same inputs, as ratios.

Run: ``python bench/bench_early_exit.py [--items 2000] [--local/--no-local]``.

1. The bundled samples (factual consistency, relevance) with the embedded SmolLM2 and its four prompts,
   no cache (every call real), or ``--cache-url`` to reuse its real answers from an earlier run. One model, so the quorum needs two of four prompts before any item can
   settle: at most half the calls can be saved, and a chance-level model settles few items.
2. A synthetic ensemble with realistic agreement: three "models" x the family's prompts, each answer
   right 80-90 % of the time and confident (0.8-0.9 on its answer), 5 ms a call. Not an LLM
   (``tests/support/synthetic_judge.py``); it measures the bookkeeping on agreeing members.

Every row checks that flags and predictions are identical with and without early exit, and prints
``calls early/full`` and ``wall early/full`` (< 1: early exit is cheaper). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.task.dataset import Item, item_from_record, read_items  # noqa: E402
from backend.scoring.engine import Engine, EngineConfig  # noqa: E402
from backend.scoring.members import build_members, default_members, parse_member_arg  # noqa: E402
from backend.task.spec import load_spec  # noqa: E402
from tests.support.synthetic_judge import SyntheticJudge  # noqa: E402


def run(spec, members, items, *, early: bool, concurrency: int, cache=None) -> tuple[list, float, int]:
    """Results, wall seconds, and member answers used (fresh calls + cache hits: what a cold run would call)."""
    engine = Engine(spec, members, cache=cache, config=EngineConfig(early_exit=early, concurrency=concurrency))
    start = time.perf_counter()
    results = list(engine.score(items))
    return results, time.perf_counter() - start, engine.stats.llm_calls + engine.stats.cache_hits


def compare(name: str, spec, members, items, *, concurrency: int, cache=None) -> None:
    full, full_s, full_calls = run(spec, members, items, early=False, concurrency=concurrency, cache=cache)
    early, early_s, early_calls = run(spec, members, items, early=True, concurrency=concurrency, cache=cache)
    same = [(r.prediction, r.flagged) for r in full] == [(r.prediction, r.flagged) for r in early]
    stopped = sum(r.stopped_early for r in early)
    print(f"{name:<44} items {len(items):>5}  members {len(members):>2}  calls full {full_calls:>6} early "
          f"{early_calls:>6}  calls early/full {early_calls / max(full_calls, 1):.3f}  saved "
          f"{1 - early_calls / max(full_calls, 1):.1%}  wall early/full {early_s / full_s:.3f} "
          f"({full_s:.1f} s -> {early_s:.1f} s)  stopped early {stopped}  flags+predictions identical: {same}")
    if not same:
        raise SystemExit("early exit changed a flag or a prediction")


def synthetic_items(spec, n: int) -> list[Item]:
    first = next(iter(spec.fields.values()))
    records = []
    for k in range(n):
        record = {spec.id_field: f"s{k}", spec.label_field: spec.labels[(k * 7) % len(spec.labels)]}
        for field in spec.fields.values():
            record[field] = f"{field} text of synthetic item {k:06d}."
        records.append(record)
    items = [item_from_record(r, spec) for r in records]
    return items, {f"{first} text of synthetic item {k:06d}.": spec.labels[(k * 7 + (k % 10 == 0)) % len(spec.labels)]
                   for k in range(n)}


def synthetic_members(spec, truth):
    judges = [SyntheticJudge(truth, model=f"judge-{c}", wrong=w, delay=0.005)
              for c, w in (("a", 0.1), ("b", 0.15), ("c", 0.2))]
    by_model = {j.model: j for j in judges}
    entries = [parse_member_arg(f"synthetic:{j.model}") for j in judges]
    return build_members(entries, spec, provider_factory=lambda e: by_model[e.model])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--local", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cache-url", default=None,
                        help="Reuse the local model's answers from this call cache (a loaded machine makes cold "
                             "runs slow): calls then count answers used, and wall time is not the model's")
    args = parser.parse_args()
    cache = None
    if args.cache_url:
        from backend.scoring.cache import CallCache

        cache = CallCache(args.cache_url)
    for spec_name, sample in (("factual-consistency", "sample_factual_consistency.jsonl"),
                              ("relevance", "sample_relevance.jsonl")):
        spec = load_spec(spec_name)
        if args.local:
            with resources.as_file(resources.files("backend").joinpath("data", sample)) as path:
                items = list(read_items(path, spec))
            compare(f"bundled {sample} (SmolLM2 x4 prompts)", spec, default_members(spec), items, concurrency=1,
                    cache=cache)
        items, truth = synthetic_items(spec, args.items)
        compare(f"synthetic {spec_name} (3 models x prompts)", spec, synthetic_members(spec, truth), items,
                concurrency=8)


if __name__ == "__main__":
    main()
