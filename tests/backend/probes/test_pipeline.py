"""The probe pipeline's bookkeeping (engine wiring, report shape, caching, errors, fencing).

Uses the test-only HashTestProvider (a deterministic prompt-hash distribution, not an LLM) so these
run in a second; the real local model and the real OpenAI-compatible server run in test_cli_llm.py.
"""

from __future__ import annotations

from importlib import resources

import pytest

from backend.scoring.cache import CallCache
from backend.task.dataset import read_items
from backend.scoring.engine import EngineConfig
from backend.scoring.members import build_members, parse_member_arg
from backend.probes.construct import build_probes
from backend.probes.layout import RELEVANCE_INSTRUCTION
from backend.probes.pipeline import run_probes
from backend.probes.findings import REPORT_KIND, render_report
from backend.scoring.prompting import BEGIN_MARKER, templates_for_spec
from backend.providers.base import ProviderError
from backend.task.spec import load_spec
from tests.backend.hash_provider import HashTestProvider

RELEVANCE = load_spec("relevance")


def sample(name: str):
    return resources.files("backend").joinpath("data", name)


def hash_members(provider, spec=RELEVANCE):
    return build_members([parse_member_arg(f"hash:{provider.model}")], spec, provider_factory=lambda e: provider)


@pytest.fixture()
def cache(tmp_path):
    c = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    yield c
    c.close()


def test_report_has_a_row_per_member_condition_and_mode_and_consistent_counts(cache):
    provider = HashTestProvider()
    members = hash_members(provider)
    entries = list(read_items(sample("sample_relevance.jsonl"), RELEVANCE))
    report = run_probes(entries, RELEVANCE, members, cache=cache, n=3, seed=4, lengths=(100, 200),
                        compare_delimiting=True)
    assert report["kind"] == REPORT_KIND and report["task"] == "relevance" and report["negative_label"] == "0"
    conditions = {f"RandP-{L}{s}" for L in (100, 200) for s in ("", "+Q", "+QWs", "+Inst")}
    conditions |= {"NonRelP", "NonRelP+Q", "NonRelP+QWs", "NonRelP+Inst"}
    ids = [m.id for m in members] + ["ensemble"]
    keys = {(r["member_id"], r["condition"], r["delimit"]) for r in report["rows"]}
    assert keys == {(m, c, d) for m in ids for c in conditions for d in (True, False)}
    assert len(report["rows"]) == len(keys)
    for row in report["rows"]:
        # NonRelP manipulations leave out items the member calls relevant unmodified (seed 003 §3.2.1).
        assert row["n"] == 3 and row["n_ok"] + row["n_errors"] + row["n_excluded"] == row["n"]
        assert row["n_excluded"] == 0 or row["source"] == "NonRelP"
        if row["n_ok"]:
            assert 0 <= row["mae"] <= 3 and 0 <= row["share_positive"] <= 1 and 0 <= row["mean_p_positive"] <= 1
        else:
            assert row["mae"] is None
        assert (row["delta_p_positive"] is None) == (row["injection"] == "none" or row["n_paired"] == 0)
    # 3 RandP sources x 2 lengths x 4 + 3 NonRelP x 4 probes, 3 templates, two fencing modes, no repeats.
    assert provider.total_calls == (3 * 2 * 4 + 3 * 4) * 3 * 2
    for stats in report["engine"].values():
        assert stats["items"] == 3 * 2 * 4 + 3 * 4 and stats["llm_calls"] == (3 * 2 * 4 + 3 * 4) * 3
        assert stats["wall_seconds"] > 0
    assert report["guard_marked"]["RandP-100+Inst"] == 1.0 and report["guard_marked"]["NonRelP+Inst"] == 1.0
    assert report["guard_marked"]["RandP-100+Q"] == 0.0 and report["guard_marked"]["RandP-200+QWs"] == 0.0
    effect = {(e["member_id"], e["condition"]): e for e in report["delimiting"]}
    assert len(effect) == len(ids) * (len(conditions) - 3)
    for entry in effect.values():
        if entry["shift_undelimited"] is None or entry["shift_delimited"] is None:  # no NonRelP item left
            assert entry["fencing_gain"] is None and entry["condition"].startswith("NonRelP")
        else:
            assert entry["fencing_gain"] == pytest.approx(entry["shift_undelimited"] - entry["shift_delimited"])


def test_a_second_run_is_served_from_the_cache_and_reproduces_the_report(cache):
    provider = HashTestProvider()
    entries = list(read_items(sample("sample_relevance.jsonl"), RELEVANCE))
    first = run_probes(entries, RELEVANCE, hash_members(provider), cache=cache, n=2, seed=1, lengths=(100,))
    calls = provider.total_calls
    second = run_probes(entries, RELEVANCE, hash_members(provider), cache=cache, n=2, seed=1, lengths=(100,))
    assert provider.total_calls == calls
    assert second["engine"]["delimited"]["llm_calls"] == 0 and second["engine"]["delimited"]["cache_hits"] > 0
    assert second["rows"] == first["rows"] and second["run_id"] != first["run_id"]
    other_seed = run_probes(entries, RELEVANCE, hash_members(provider), cache=cache, n=2, seed=2, lengths=(100,))
    assert provider.total_calls > calls and other_seed["rows"] != first["rows"]


def test_member_errors_are_counted_per_condition_and_never_stop_the_run(cache):
    def fail_on_instructions(prompt: str, attempt: int):
        # The planted sentence as planted (capitalised): two templates quote the scale in lower case.
        return ProviderError("bad_request", "refused") if RELEVANCE_INSTRUCTION in prompt else None

    provider = HashTestProvider(fail=fail_on_instructions)
    entries = list(read_items(sample("sample_relevance.jsonl"), RELEVANCE))
    report = run_probes(entries, RELEVANCE, hash_members(provider), cache=cache, n=2, seed=0, lengths=(100,),
                        config=EngineConfig(max_attempts=1, breaker_after=None))
    injections = [row["injection"] for row in report["rows"]]
    assert "Inst" in injections and any(i != "Inst" for i in injections)  # both branches below must run
    for row in report["rows"]:
        if row["injection"] == "Inst":
            assert row["n_ok"] == 0 and row["n_errors"] == 2 and row["mae"] is None
            assert row["errors"] == ({"no_member_answered": 2} if row["member_id"] == "ensemble" else {"bad_request": 2})
        else:
            assert row["n_errors"] == 0


def test_bad_records_are_skipped_and_noted_and_an_empty_input_is_refused(tmp_path, cache):
    data = tmp_path / "mixed.jsonl"
    data.write_text(
        '{"id": "a", "query": "q a", "passage": "p a", "label": 0}\n{not json\n'
        '{"id": "b", "query": "q b", "passage": "p b", "label": 7}\n',
        encoding="utf-8",
    )
    report = run_probes(read_items(data, RELEVANCE), RELEVANCE, hash_members(HashTestProvider()), cache=cache,
                        n=1, lengths=(100,))
    assert any("2 input record(s)" in note for note in report["notes"])
    with pytest.raises(ValueError, match="no usable item"):
        run_probes(iter(()), RELEVANCE, hash_members(HashTestProvider()), cache=cache)


def test_fenced_prompts_carry_the_planted_instruction_inside_the_data_markers():
    entries = [e for e in read_items(sample("sample_relevance.jsonl"), RELEVANCE)]
    probe_set = build_probes(entries, RELEVANCE, n=1, seed=0, lengths=(100,))
    planted = next(p for p in probe_set.probes if p.condition.injection == "Inst")
    instruction = probe_set.layout.instruction
    for template in templates_for_spec(RELEVANCE):
        fenced = template.render(planted.item.fields, delimit=True, params={})
        plain = template.render(planted.item.fields, delimit=False, params={})
        assert BEGIN_MARKER in fenced and BEGIN_MARKER not in plain
        assert fenced.index(BEGIN_MARKER) < fenced.index(instruction)
        assert instruction in plain


def test_render_report_prints_every_condition_and_the_fencing_table(cache):
    from rich.console import Console

    entries = list(read_items(sample("sample_factual_consistency.jsonl"), load_spec("factual-consistency")))
    spec = load_spec("factual-consistency")
    report = run_probes(entries, spec, hash_members(HashTestProvider(), spec), cache=cache, n=2, lengths=(100,),
                        compare_delimiting=True)
    console = Console(record=True, width=160)
    render_report(report, console)
    text = console.export_text()
    for condition in ("RandP-100+QWs", "RandP-100+Inst", "NonRelP+QWs", "NonRelP+Inst", "fencing gain"):
        assert condition in text
    assert "RandP-100+Q " not in text  # no +Q for factual consistency (the claim would be stated)


def test_likert_probes_run_through_the_likert_templates(tmp_path, cache):
    spec = load_spec("likert")
    data = tmp_path / "likert.jsonl"
    data.write_text(
        "".join(
            f'{{"id": "s{i}", "source": "The council approved the new park budget on Monday after a long debate.", '
            f'"summary": "Summary {i} of the council meeting.", "label": {1 + i % 5}}}\n'
            for i in range(6)
        ),
        encoding="utf-8",
    )
    report = run_probes(read_items(data, spec), spec, hash_members(HashTestProvider(), spec), cache=cache, n=2,
                        lengths=(100,))
    conditions = {r["condition"] for r in report["rows"]}
    assert conditions == {"RandP-100", "RandP-100+QWs", "RandP-100+Inst", "NonRelP", "NonRelP+QWs", "NonRelP+Inst"}
    assert report["negative_label"] == "1" and "rate it 5" in report["layout"]["instruction"]
    assert all(0 <= r["mae"] <= 4 for r in report["rows"] if r["n_ok"])
    assert all(r["source"] == "NonRelP" for r in report["rows"] if not r["n_ok"])
    assert report["guard_marked"]["NonRelP+Inst"] == 1.0
