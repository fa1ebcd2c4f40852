"""`label-audit score` on a task with no spec and no prompt folder: a Label Studio config, or --labels."""

from __future__ import annotations

import json

import pytest

from tests.backend.generic.templates import SENTIMENT
from tests.backend.commands.test_score_cli import run_cli

pytestmark = pytest.mark.llm

ROWS = [{"id": "r1", "text": "Great value, would buy again.", "label": "Positive"},
        {"id": "r2", "text": "Arrived broken.", "label": "neutral"},
        {"id": "r3", "text": "It is a chair.", "label": "Furious"}]  # not a label: an error on its line


def test_score_with_a_label_config_and_guidelines_needs_no_prompt_folder(smollm2_path, tmp_path):
    data = tmp_path / "reviews.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    (tmp_path / "config.xml").write_text(SENTIMENT, "utf-8")
    (tmp_path / "guide.html").write_text("<p>Overall sentiment of the review.</p>", "utf-8")
    run_cli("score", str(data), "--label-config", "config.xml", "--guidelines", "guide.html",
            "--member", "local:smollm2", "--out", "out.jsonl", "--summary-json", "s.json", cwd=tmp_path)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert (summary["items"], summary["scored"]) == (3, 2) and set(summary["errors"]) == {"bad_label"}
    results = {r["id"]: r for r in map(json.loads, (tmp_path / "out.jsonl").read_text().splitlines())}
    assert results["r2"]["original"] == "Neutral"  # case-insensitive match to the label set
    for rid in ("r1", "r2"):
        assert set(results[rid]["probs"]) == {"Positive", "Negative", "Neutral"}
        assert sum(results[rid]["probs"].values()) == pytest.approx(1.0)
        assert len(results[rid]["members"]) == 4
    again = run_cli("score", str(data), "--labels", "Positive,Negative,Neutral", "--fields", "text",
                    "--member", "local:smollm2", "--summary-json", "s2.json", cwd=tmp_path)
    assert "generic" in again
