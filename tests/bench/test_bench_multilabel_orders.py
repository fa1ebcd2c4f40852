"""bench/bench_multilabel_orders.py: the planted sets, the config it builds, and a run on 3 real cooking questions x
2 tags with the embedded model (real calls, one prompt, one order then two).

Asserts what holds whatever the tiny model answers: planting changes exactly one tag of the items chosen, the
config is a multi-label project asking the header's question, the two-order run finds its first order in the
cache (its fresh calls are the second order's, and its first-order answers are the one-order run's, to the bit),
each tag's P(yes) over two orders is the mean of its orders' (one prompt: one member), every figure lies in its
range, and a re-run calls nothing. Skips unless a benchmark has fetched the cooking archive (the suite downloads
no data set).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.cache import CallCache

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import real_sets  # noqa: E402
from tests.support.bench_module import load_bench_module  # noqa: E402


def load_bench():
    return load_bench_module("bench_multilabel_orders")


def test_planting_changes_one_tag_of_the_share_asked_with_a_fixed_seed():
    bench = load_bench()
    tags = ("a", "b", "c", "d")
    true = [["a"], ["b", "c"], ["a", "b", "c", "d"], ["d"], [], ["a", "c"]] * 5
    given = bench.plant_sets(true, tags, rate=0.3, seed=0)
    changed = [(t, g) for t, g in zip(true, given) if t != g]
    assert len(changed) == 9 and given == bench.plant_sets(true, tags, rate=0.3, seed=0)
    for t, g in changed:
        assert len(set(t) ^ set(g)) == 1 and g == [x for x in tags if x in g]  # one tag dropped or added, in order
    assert {len(g) - len(t) for t, g in changed} == {-1, 1}  # both kinds occur


def test_the_config_is_a_multilabel_project_asking_the_header_question():
    bench = load_bench()
    spec = spec_from_label_config(bench.label_config(real_sets.COOKING_TAGS[:3]))
    assert spec.family == "multilabel" and spec.labels == ("baking", "food-safety", "substitutions")
    first = spec.task_family.questions(spec)[0].spec
    assert bench.QUESTION in first.prompt.question and '"baking"' in first.prompt.question


@pytest.mark.llm
def test_one_order_then_two_on_three_real_questions(smollm2_path, tmp_path):
    if not (real_sets.CACHE / real_sets.NPM_FASTTEXT["tarball"]).is_file():
        pytest.skip(f"the cooking archive is not cached in {real_sets.CACHE} (the multi-label benchmarks fetch it)")
    bench = load_bench()
    cache_url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    args = ["--member", "local:smollm2", "--prompt", "generic-question", "--items", "3", "--tags", "2",
            "--planted-rate", "0.34", "--cache-url", cache_url, "--json", str(tmp_path / "out.json")]
    report = bench.main(args)
    assert report == json.loads((tmp_path / "out.json").read_text("utf-8"))
    assert report["items"] == 3 and report["tags"] == ["baking", "food-safety"] and report["planted_items"] == 1
    one, two = report["runs"]
    pairs = 3 * 2  # items x tags, one prompt
    assert (one["orders"], one["calls_total"], one["calls_fresh"]) == (1, pairs, pairs)
    assert (two["orders"], two["calls_total"], two["calls_fresh"]) == (2, 2 * pairs, pairs)  # order 1 from the cache
    assert one["model_version"] != two["model_version"]
    for r1, r2 in zip(one["item_rows"], two["item_rows"]):
        assert r1["answered"] and r2["answered"] and r1["given"] == r2["given"]
        for tag in report["tags"]:
            (p1,) = r1["p_yes_by_order"][tag]
            first, second = r2["p_yes_by_order"][tag]
            assert first == p1 == r1["p_yes"][tag]  # the same call, answered from the cache
            assert r2["p_yes"][tag] == pytest.approx((first + second) / 2)  # the engine's average over orders
    assert len(two["overall"]["yes_share_by_order"]) == 2 and len(one["overall"]["yes_share_by_order"]) == 1
    for run in (one, two):
        assert run["overall"]["pairs"] == pairs and run["per_item"]["answered"] == 3 and run["per_item"]["errors"] == 1
        assert run["overall"]["errors"] == 1  # one planted item, one tag changed
        for f in [run["overall"], *run["per_tag"].values()]:
            for key in ("yes_share", "true_share", "given_share", "mean_p_yes", "accuracy"):
                assert 0.0 <= f[key] <= 1.0
            assert all(0.0 <= s <= 1.0 for s in f["yes_share_by_order"])
        assert run["overall"]["true_share"] == pytest.approx(
            sum(len(r["true"]) for r in run["item_rows"]) / pairs)
    cache = CallCache(cache_url)
    stored = cache.count()
    cache.close()
    assert stored == 2 * pairs
    again = bench.main(args)
    assert [r["calls_fresh"] for r in again["runs"]] == [0, 0]
    assert [r["item_rows"] for r in again["runs"]] == [one["item_rows"], two["item_rows"]]
