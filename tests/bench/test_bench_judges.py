"""bench/bench_judges.py end to end on 4 items with the embedded model (real calls, one prompt, two order settings).

Asserts shapes and invariants of the figures, never the tiny model's verdicts: every figure lies in its
range, two orders cost twice the calls per item, the per-member figures name every prompt asked, and a
re-run is served from the call cache.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from backend.scoring.cache import CallCache

ROOT = Path(__file__).resolve().parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_judges", ROOT / "bench" / "bench_judges.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_planting_replaces_the_share_asked_with_another_class():
    bench = load_bench()
    true = ["a", "b", "c"] * 10
    given = bench.plant(true, ["a", "b", "c"], rate=0.1, seed=0)
    assert sum(g != t for g, t in zip(given, true)) == 3 and given == bench.plant(true, "abc", rate=0.1, seed=0)


@pytest.mark.llm
def test_the_bench_runs_through_the_tools_path_on_four_items(smollm2_path, tmp_path):
    bench = load_bench()
    cache_url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    args = ["--member", "local:smollm2", "--data-set", "question-types", "--items", "4", "--orders", "1,2",
            "--prompt", "generic-question", "--calibration", "none,content-free", "--cache-url", cache_url,
            "--json", str(tmp_path / "out.json")]
    report = bench.main(args)
    assert report == json.loads((tmp_path / "out.json").read_text("utf-8"))
    runs = report["runs"]
    assert [(r["orders"], r["calibration"], r["ensemble"]["calls_per_item"]) for r in runs] == [
        (1, "none", 1), (1, "content-free", 1), (2, "none", 2), (2, "content-free", 2)]
    assert [sorted(r["priors"]) for r in runs] == [[], ["o0"], [], ["o0", "o3"]]
    for run in runs:
        assert run["items"] == 4 and list(run["members"]) == ["local:smollm2/generic-question@v1"]
        for figures in [*run["members"].values(), run["ensemble"]]:
            assert figures["answered"] == 4
            assert 0.0 <= figures["accuracy"] <= 1.0 and 0.25 <= figures["modal_share"] <= 1.0
            assert set(figures["accuracy_by_letter"]) <= set("ABCDEF")
    for run in runs:  # the sweep's "top > 0.5" is the tool's own flag rule, read again from the same distributions
        sweep = run["ensemble"]["flag_sweep"]
        assert sweep["top>0.5"]["flagged"] == run["ensemble"]["flagged"]
        assert [sweep[f"given<{t}"]["flagged"] for t in bench.GIVEN_THRESHOLDS] == sorted(
            sweep[f"given<{t}"]["flagged"] for t in bench.GIVEN_THRESHOLDS)  # a higher bar flags no fewer
    assert runs[2]["members"]["local:smollm2/generic-question@v1"]["position_flip_rate"] is not None
    cache = CallCache(cache_url)
    stored = cache.count()
    cache.close()
    # The order as given is shared by both settings, the rotation adds one call per item; calibration re-uses
    # them and adds two content-free calls per order.
    assert stored == 4 + 4 + 2 * 2
    assert bench.main(args) == report
    cache = CallCache(cache_url)
    assert cache.count() == stored
    cache.close()
