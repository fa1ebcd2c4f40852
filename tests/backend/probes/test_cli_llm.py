"""`label-audit probe` end to end with real models: the embedded GGUF in-process, and a real
``llama_cpp.server`` over the OpenAI protocol. Shapes and invariants only, never verdicts: the tiny
default model has no judging signal (docs/architecture.md#the-embedded-judge-proves-the-plumbing).
"""

from __future__ import annotations

import json
from importlib import resources

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.probes.probe_store import latest_probe_results
from tests.support.services import free_port

def sample(name: str) -> str:
    return str(resources.files("backend").joinpath("data", name))


def run_probe(*args: str):
    result = CliRunner().invoke(app, ["probe", *args, "--no-progress"], catch_exceptions=False)
    return result


def check_rows(report: dict, members: list[str], conditions: set[str], modes: tuple[bool, ...], n: int) -> None:
    keys = {(r["member_id"], r["condition"], r["delimit"]) for r in report["rows"]}
    assert keys == {(m, c, d) for m in [*members, "ensemble"] for c in conditions for d in modes}
    for row in report["rows"]:
        assert row["n"] == n and row["n_ok"] + row["n_errors"] + row["n_excluded"] == n
        if row["n_ok"]:
            assert 0 <= row["share_positive"] <= 1 and 0 <= row["mean_p_positive"] <= 1
            assert 0 <= row["mae"] <= len(report["labels"]) - 1


@pytest.mark.llm
def test_local_default_model_on_the_bundled_relevance_sample(tmp_path, smollm2_path):
    members_file = tmp_path / "members.yaml"
    members_file.write_text("- provider: local\n  model: smollm2\n  prompts: [rel-basic]\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    out = tmp_path / "report.json"
    args = [sample("sample_relevance.jsonl"), "--task", "relevance", "--members", str(members_file), "--n", "1",
            "--lengths", "100", "--seed", "3", "--compare-delimiting", "--cache-url", db, "--out", str(out)]
    result = run_probe(*args)
    assert result.exit_code == 0, result.output
    assert "Gullibility probes" in result.output and "fencing gain" in result.output

    report = json.loads(out.read_text("utf-8"))
    member = "local:smollm2/rel-basic@v1"
    conditions = {"RandP-100", "RandP-100+Q", "RandP-100+QWs", "RandP-100+Inst",
                  "NonRelP", "NonRelP+Q", "NonRelP+QWs", "NonRelP+Inst"}
    check_rows(report, [member], conditions, (True, False), 1)
    # A fresh cache: 8 probes x 1 prompt called fenced, and 8 more unfenced (different prompts, no sharing).
    assert report["engine"]["delimited"]["llm_calls"] == 8 and report["engine"]["undelimited"]["llm_calls"] == 8
    assert report["guard_marked"]["RandP-100+Inst"] == 1.0 and report["guard_marked"]["RandP-100+QWs"] == 0.0
    fencing = {(e["member_id"], e["condition"]): e for e in report["delimiting"]}
    assert (member, "RandP-100+Inst") in fencing and (member, "NonRelP+Inst") in fencing
    for entry in fencing.values():
        if entry["fencing_gain"] is not None:
            assert entry["fencing_gain"] == pytest.approx(entry["shift_undelimited"] - entry["shift_delimited"])

    stored = latest_probe_results(db)
    assert {r["run_id"] for r in stored} == {report["run_id"]}
    assert len(stored) == len(report["rows"])

    # Same seed again: every answer from the cache, the same numbers, printed as JSON.
    again = run_probe(*args[:-2], "--json", "--no-store")
    assert again.exit_code == 0
    second = json.loads(again.output)
    assert second["engine"]["delimited"]["llm_calls"] == 0 and second["engine"]["undelimited"]["llm_calls"] == 0
    assert second["rows"] == report["rows"]


@pytest.mark.llm
def test_openai_compatible_server_path(tmp_path, llama_server):
    members_file = tmp_path / "members.yaml"
    members_file.write_text(
        f"- provider: openai\n  model: {json.dumps(llama_server.model)}\n  base_url: {llama_server.base_url}\n"
        "  prompts: [fc-document-statement]\n",
        encoding="utf-8",
    )
    out = tmp_path / "report.json"
    result = run_probe(sample("sample_factual_consistency.jsonl"), "--task", "factual-consistency", "--members",
                       str(members_file), "--n", "1", "--lengths", "100", "--cache-url",
                       f"sqlite:///{tmp_path / 'audit.sqlite'}", "--out", str(out))
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text("utf-8"))
    member = f"openai:{llama_server.model}/fc-document-statement@v1"
    conditions = {"RandP-100", "RandP-100+QWs", "RandP-100+Inst", "NonRelP", "NonRelP+QWs", "NonRelP+Inst"}
    check_rows(report, [member], conditions, (True,), 1)
    assert report["layout"]["target"] == "grounding" and report["layout"]["stuffing"] == ["QWs"]
    assert "delimiting" not in report


def test_an_unreachable_server_is_counted_as_member_errors_not_a_crash(tmp_path):
    port = free_port()
    out = tmp_path / "report.json"
    result = run_probe(sample("sample_relevance.jsonl"), "--task", "relevance", "--member",
                       f"openai:nothing@http://127.0.0.1:{port}/v1", "--n", "1", "--lengths", "100",
                       "--max-attempts", "1", "--timeout", "5", "--no-cache", "--no-store", "--out", str(out))
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text("utf-8"))
    assert report["rows"] and all(r["n_ok"] == 0 and r["n_errors"] == r["n"] for r in report["rows"])
    member_errors = {reason for r in report["rows"] if r["member_id"] != "ensemble" for reason in r["errors"]}
    assert member_errors and member_errors <= {"connection", "provider_down", "timeout"}


def test_usage_errors_exit_2_with_a_message(tmp_path):
    missing = run_probe(str(tmp_path / "nope.jsonl"), "--task", "relevance")
    assert missing.exit_code == 2 and "no such input file" in missing.output
    bad_lengths = run_probe(sample("sample_relevance.jsonl"), "--task", "relevance", "--lengths", "100,x")
    assert bad_lengths.exit_code == 2 and "--lengths" in bad_lengths.output
    both = run_probe(sample("sample_relevance.jsonl"), "--task", "relevance", "--members", "m.yaml", "--member", "local:smollm2")
    assert both.exit_code == 2
