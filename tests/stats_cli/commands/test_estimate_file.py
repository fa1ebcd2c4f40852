"""`audit-stats estimate FILE`: both estimates from a file of audited items, bad rows reported, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from stats_cli.cli import app

runner = CliRunner()


def audit_file(tmp_path: Path, *, bad: bool = False, jsonl: bool = False) -> Path:
    """1000 items, 20 % wrong, a judge whose score tracks the truth, 200 reviewed at random."""
    rng = np.random.default_rng(0)
    wrong = rng.uniform(size=1000) < 0.2
    scores = np.clip(rng.uniform(0, 0.5, size=1000) + 0.5 * wrong, 0, 1)
    reviewed = set(rng.choice(1000, size=200, replace=False).tolist())
    records = [{"id": f"t{i}", "score": round(float(scores[i]), 4), "wrong": int(wrong[i]) if i in reviewed else None}
               for i in range(1000)]
    if jsonl:
        path = tmp_path / "audit.jsonl"
        lines = [json.dumps(r) for r in records] + (["{not json", json.dumps({"id": "t1", "score": 0.5})] if bad else [])
    else:
        path = tmp_path / "audit.csv"
        lines = ["id,score,wrong,p"] + [f"{r['id']},{r['score']},{'' if r['wrong'] is None else r['wrong']},"
                                         for r in records] + (["t9999,1.7,,", ",0.2,1,"] if bad else [])
    path.write_text("\n".join(lines) + "\n")
    return path


def test_json_prints_both_estimates_and_the_sample_sizes(tmp_path):
    result = runner.invoke(app, ["estimate", str(audit_file(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    for key in ("design_only", "with_judges"):
        assert set(out[key]) >= {"value", "low", "high"}
        assert out[key]["low"] <= out[key]["value"] <= out[key]["high"]
    assert (out["population"], out["reviewed"]) == (1000, 200)
    assert out["used_judges"] and out["width_ratio"] < 0.9
    assert out["n_skipped"] == 0
    assert out["reviews_for"]["0.02"]["with_judges"] < out["reviews_for"]["0.02"]["design_only"]


def test_bad_rows_are_counted_and_the_rest_is_estimated(tmp_path):
    for jsonl in (False, True):
        result = runner.invoke(app, ["estimate", str(audit_file(tmp_path, bad=True, jsonl=jsonl)), "--json"])
        assert result.exit_code == 3, result.output
        out = json.loads(result.stdout)
        assert out["n_skipped"] == 2 and out["population"] == 1000


def test_tables_say_what_the_interval_rests_on(tmp_path):
    result = runner.invoke(app, ["estimate", str(audit_file(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "with the judges' scores" in result.stdout and "λ =" in result.stdout


def test_no_reviewed_row_is_pending_not_a_crash(tmp_path):
    path = tmp_path / "none.csv"
    path.write_text("id,score,wrong,p\na,0.2,,\nb,0.4,,\n")
    result = runner.invoke(app, ["estimate", str(path)])
    assert result.exit_code == 1 and "PENDING" in result.stdout


def test_file_and_strata_together_are_refused(tmp_path):
    result = runner.invoke(app, ["estimate", str(audit_file(tmp_path)), "--stratum", "100:10:1"])
    assert result.exit_code != 0 and "not both" in result.output
