"""Data printed to the terminal is text: rich markup in an item id does not crash a command, and terminal
escape sequences (ESC, OSC) never reach the terminal. Real commands in subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.backend.server.backend_process import REPO

BIN = Path(sys.executable).parent
CLEAR = "\x1b[2J"
OSC = "\x1b]0;owned\x07"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_WAIT_POLICY": "PASSIVE", "COLUMNS": "200"}
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_audit_stats_agreement_prints_labels_as_text(tmp_path: Path) -> None:
    data = tmp_path / "a.csv"
    data.write_text(f"item,annotator,label\n[/],a,0\n[/],b,1\n2,a,{OSC}\n2,b,1\n3,a,0\n3,b,[red]x\n")
    done = _run(str(BIN / "audit-stats"), "agreement", str(data), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "[red]x" in done.stdout


@pytest.mark.llm
def test_score_prints_markup_ids_and_escapes_as_text(tmp_path: Path, smollm2_path) -> None:
    rows = [{"id": "[/]", "grounding": "The cat sat on the mat.", "generated_text": "The cat sat.", "label": "0"},
            {"id": f"[bold]{CLEAR}", "grounding": "The cat sat on the mat.", "generated_text": "The cat sat.",
             "label": "1"}]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    members = tmp_path / "m.yaml"
    members.write_text(yaml.safe_dump([{"provider": "local", "model": "smollm2", "prompts": ["fc-premise-hypothesis"]}]))
    done = _run(str(BIN / "label-audit"), "score", str(data), "--task", "factual-consistency", "--members",
                str(members), "--no-cache", "--out", "r.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\x1b" not in done.stdout
    assert "[/]" in done.stdout or "[bold]" in done.stdout  # the flagged one is listed, literally
