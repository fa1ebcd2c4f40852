"""`label-audit score --member local:qwen2.5-coder-1.5b` end to end on the real 1.5B judge (opt-in install).

CI does not install the named judge (1.1 GB): there the test is skipped, saying how to install it. Shapes
and bookkeeping are asserted, never verdicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backend.providers.named_models import install_command, installed_path

pytestmark = pytest.mark.llm

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "backend" / "data" / "sample_factual_consistency.jsonl"
NAME = "qwen2.5-coder-1.5b"
MEMBER = f"local:{NAME}"


@pytest.fixture(scope="module")
def named_judge() -> Path:
    try:
        return installed_path(NAME)
    except FileNotFoundError:
        pytest.skip(f"{MEMBER} is not installed (an opt-in step CI does not take): {install_command(NAME)}")


def score(tmp_path: Path, data: Path, summary: Path, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LABEL_AUDIT_HOME": str(tmp_path / ".label-audit")}
    return subprocess.run(
        [sys.executable, "-m", "backend.cli", "score", str(data), "--task", "factual-consistency",
         "--member", MEMBER, "--summary-json", str(summary), "--out", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200,
    )


def test_the_named_judge_scores_items_through_the_cli(named_judge: Path, tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:2]))
    summary_path, out = tmp_path / "summary.json", tmp_path / "results.jsonl"
    proc = score(tmp_path, data, summary_path, out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(summary_path.read_text())
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    prompts = len(rows[0]["members"])
    assert summary["items"] == summary["scored"] == 2 and prompts >= 1
    assert summary["llm_calls"] == 2 * prompts and summary["cache_hits"] == 0
    for row in rows:
        assert row["error"] is None and row["prediction"] in ("0", "1")
        assert sum(row["probs"].values()) == pytest.approx(1.0)
        for member in row["members"]:
            assert member["member_id"].startswith(f"{MEMBER}/") and member["error"] is None
            assert member["method"] == "logits" and 0.0 < member["raw_mass"] <= 1.0
            assert sum(member["probs"].values()) == pytest.approx(1.0)
            assert member["usage"]["prompt_tokens"] > 20

    again = score(tmp_path, data, summary_path, out)  # the call cache: nothing is asked twice
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(summary_path.read_text())["llm_calls"] == 0
