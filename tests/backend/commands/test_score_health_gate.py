"""`label-audit score` leaves a member that member health names COLLAPSED out of the verdicts and flags.

Real components: the embedded model scores 20 items of the bundled sample (originals 11 "1" / 9 "0", spread)
with two prompts, one of them written for this test to see no item at all — it must give every item the same
answer, so member health names it COLLAPSED by construction, whatever the model answers (no verdict of the tiny
model is asserted). The written results and the summary must then agree with the verdict re-read from the
members the gate keeps.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.backend.commands.test_score_cli import REPO, run_cli, write_dataset

BLIND = """id: fc-blind
version: 1
description: Sees no item (a test of the health gate): the same answer for every item.
---
{data_notice}
Is the statement supported? Reply with a single digit: 1 if it is supported, 0 if it is not.
Answer: """


@pytest.mark.llm
def test_a_collapsed_prompt_leaves_the_verdict_of_a_score_run(smollm2_path, tmp_path, monkeypatch):
    prompts = tmp_path / "prompts"
    shutil.copytree(REPO / "prompts", prompts)
    (prompts / "factual_consistency" / "blind.txt").write_text(BLIND, "utf-8")
    members = tmp_path / "members.yaml"
    members.write_text("members:\n  - provider: local\n    model: smollm2\n"
                       "    prompts: [fc-blind, fc-grounding-generated]\n", "utf-8")
    data = write_dataset(tmp_path / "d.jsonl", 20)
    url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    monkeypatch.setenv("LABEL_AUDIT_PROMPTS", str(prompts))  # the CLI's child process reads it at its edge
    run_cli("score", str(data), "--task", "factual-consistency", "--members", str(members), "--cache-url",
            url, "--option-orders", "1", "--out", "out.jsonl", "--summary-json", "s.json", cwd=tmp_path)
    summary = json.loads((tmp_path / "s.json").read_text())
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    health = {r["member"]: r for r in summary["member_health"]["members"]}
    blind = next(m for m in health if "fc-blind" in m)
    assert health[blind]["answer_share"] == 1.0 and health[blind]["status"] == "COLLAPSED"
    other = next(m for m in health if m != blind)
    left_out = [x["member"] for x in summary["health_gate"]["left_out"]]
    if health[other]["collapsed"]:  # both collapsed: none can be left out, and the summary says why
        assert left_out == [] and "every member (2) is collapsed" in summary["health_gate"]["note"]
        return
    assert left_out == [blind] and "COLLAPSED" in summary["health_gate"]["left_out"][0]["reason"]
    for row in rows:  # the verdict is the one kept member's own answer
        kept = next(m for m in row["members"] if m["member_id"] == other)
        assert row["probs"] == pytest.approx(kept["probs"])
        top = max(kept["probs"], key=kept["probs"].get)
        assert row["prediction"] == top
        assert row["flagged"] == (top != row["original"] and kept["probs"][top] > summary["threshold"])
        assert len(row["members"]) == 2  # the left-out member's answers stay recorded
    assert summary["flagged"] == sum(r["flagged"] for r in rows)
    assert len(summary["members"]) == 2
