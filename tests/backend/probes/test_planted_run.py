"""`label-audit probe` with the planted instruction on a generic task, end to end with the embedded model.

Shapes and invariants only, never verdicts: the tiny default model has no judging signal
(docs/architecture.md#the-embedded-judge-proves-the-plumbing).
The option checks run without a model (they fail before any member is built).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.probes.probe_store import latest_probe_results
from stats_cli.sources.audit_sources import probe_rows

ROWS = [{"id": "s1", "text": "Great value, would buy again.", "label": "Positive"},
        {"id": "s2", "text": "Arrived broken and support never answered.", "label": "Negative"},
        {"id": "s3", "text": "It is a chair with four legs.", "label": "Neutral"},
        {"id": "s4", "text": "Absolutely love the colour and the fit.", "label": "Positive"},
        {"id": "s5", "text": "Stopped working after two days.", "label": "Negative"},
        {"id": "s6", "text": "The package contains one lamp and a cable.", "label": "Neutral"}]
GENERIC = ("--labels", "Positive,Negative,Neutral", "--fields", "text")


def run_probe(*args: str):
    return CliRunner().invoke(app, ["probe", *args, "--no-progress"], catch_exceptions=False)


@pytest.fixture
def sentiment(tmp_path):
    path = tmp_path / "reviews.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    return path


def test_builtin_probes_are_refused_for_a_task_without_a_layout(sentiment):
    result = run_probe(str(sentiment), *GENERIC, "--probe", "builtin", "--member", "local:smollm2")
    assert result.exit_code != 0 and "no built-in probe layout" in result.output
    result = run_probe(str(sentiment), *GENERIC, "--compare-delimiting", "--member", "local:smollm2")
    assert result.exit_code != 0 and "--compare-delimiting" in result.output
    result = run_probe(str(sentiment), *GENERIC, "--probe", "sideways", "--member", "local:smollm2")
    assert result.exit_code != 0 and "--probe must be one of" in result.output


@pytest.mark.llm
def test_planted_probe_on_a_generic_sentiment_file(tmp_path, sentiment, smollm2_path):
    db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    out = tmp_path / "report.json"
    args = [str(sentiment), *GENERIC, "--member", "local:smollm2", "--n", "2", "--seed", "1", "--cache-url", db]
    result = run_probe(*args, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Planted-instruction probe" in result.output and "steers the judge" in result.output

    report = json.loads(out.read_text("utf-8"))
    info = report["planted"]
    assert report["probe"] == "planted" and info["field"] == "text" and info["sampled"] == 2
    members = report["members"]
    assert len(members) == 4 and all(m.startswith("local:smollm2/generic-") for m in members)
    assert [r["member_id"] for r in report["rows"]] == [*members, "ensemble"]
    targets = {t["id"]: t for t in info["targets"]}
    original = {r["id"]: r["label"] for r in ROWS}
    for target in targets.values():
        assert target["label"] in ("Positive", "Negative", "Neutral") and target["shown"] == target["label"]
        assert target["id"] in original
    for row in report["rows"]:
        assert row["condition"] == "Planted" and row["n"] == 2
        assert row["n_ok"] + row["n_errors"] + row["n_excluded"] == 2
        assert 0 <= row["successes"] <= row["n_ok"]
        if row["n_ok"]:
            assert row["success_rate"] == row["successes"] / row["n_ok"]
            assert 0 <= row["ci_low"] <= row["success_rate"] <= row["ci_high"] <= 1
            assert -1 <= row["delta_p_target"] <= 1
    ensemble = report["rows"][-1]
    if ensemble["n_ok"] == info["probed"] == 2:
        # A fresh cache: 2 unmodified + 2 planted items, four prompts each.
        assert report["engine"]["unmodified"]["llm_calls"] == 8 and report["engine"]["planted"]["llm_calls"] == 8

    stored = latest_probe_results(db)
    assert {r["run_id"] for r in stored} == {report["run_id"]} and len(stored) == 5
    rows = {p.member_id: p for p in probe_rows(db_url=db)}
    assert rows["ensemble"].condition == "Planted" and rows["ensemble"].n == ensemble["n_ok"]

    # Same seed again: the same sample, the same planted labels, every answer from the cache.
    again = run_probe(*args, "--json", "--no-store")
    assert again.exit_code == 0
    second = json.loads(again.output)
    assert second["planted"]["targets"] == info["targets"] and second["rows"] == report["rows"]
    assert second["engine"]["unmodified"]["llm_calls"] == 0


@pytest.mark.llm
def test_planted_probe_on_a_builtin_task_plants_into_the_passage(tmp_path, smollm2_path):
    from importlib import resources

    sample = str(resources.files("backend").joinpath("data", "sample_relevance.jsonl"))
    members_file = tmp_path / "members.yaml"
    members_file.write_text("- provider: local\n  model: smollm2\n  prompts: [rel-basic]\n", encoding="utf-8")
    out = tmp_path / "report.json"
    result = run_probe(sample, "--task", "relevance", "--probe", "planted", "--members", str(members_file),
                       "--n", "1", "--no-store", "--cache-url", f"sqlite:///{tmp_path / 'c.sqlite'}",
                       "--out", str(out))
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text("utf-8"))
    assert report["planted"]["field"] == "passage" and report["labels"] == ["0", "1", "2", "3"]
    for target in report["planted"]["targets"]:
        assert target["label"] in report["labels"] and target["shown"] == target["label"]
    assert [r["member_id"] for r in report["rows"]] == ["local:smollm2/rel-basic@v1", "ensemble"]
    assert all(r["n"] == 1 and r["n_ok"] + r["n_errors"] + r["n_excluded"] == 1 for r in report["rows"])
