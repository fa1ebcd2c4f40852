"""The end-of-run summary in an 80-column terminal: what it must still say once rich has laid it out.

Four defects seen on `label-audit score` (issue 34): every member cut to ``local:s…`` (rows alike), the
flag rule broken up by the table, ``cached 0`` per member beside ``cache_hits 36`` for a multi-label
file scored twice, and the task named ``labelstudio``. The in-process tests lay out summaries built by
the real builders (``build_summary``, ``Accountant``, ``EngineStats``) from result records shaped as the
engine writes them; the ``llm`` test runs the real command twice on a multi-label file with the embedded
model.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from backend.costs.accounting import Accountant
from backend.scoring.results import ItemResult, MemberResult
from backend.scoring.run_stats import tally
from backend.summaries.score_summary import SuspectList, build_summary, print_summary

REPO = Path(__file__).resolve().parents[3]
PROMPTS = ("generic-annotator@v1", "generic-definitions@v1", "generic-expert-check@v1", "generic-question@v1")
MEMBERS = tuple(f"local:smollm2/{p}" for p in PROMPTS)
LABELS = ("Sports", "Technology", "Politics")
MULTI_RULE = "per label: predicted != original (a label set or left out); the item when any label is"


def _multilabel_result(n: int, *, cached: bool) -> ItemResult:
    """One multi-label item as the question engine assembles it: one member row per member and label."""
    members = tuple(MemberResult(f"{m}#{label}", probs={"yes": 0.7, "no": 0.3}, raw_mass=0.1, cached=cached,
                                 latency_s=None if cached else 1.0, usage={"prompt_tokens": 10})
                    for label in LABELS for m in MEMBERS)
    questions = tuple(ItemResult(id=label, original="yes" if label == "Sports" else "no", prediction="yes",
                                 confidence=0.7, probs={"yes": 0.7, "no": 0.3}, flagged=label != "Sports")
                      for label in LABELS)
    return ItemResult(id=f"a{n}", original='["Sports"]', prediction=json.dumps(list(LABELS)), confidence=0.7,
                      probs=None, flagged=True, members=members, line=n, questions=questions)


def _summary(results: list[ItemResult], *, flag_rule: str, task: str = "labelstudio") -> dict:
    accountant, suspects = Accountant(None, MEMBERS), SuspectList()
    for result in results:
        accountant.add(result)
        suspects.add(result)
    return build_summary(tally(results), task=task, members=MEMBERS, model_version="d519e09efb0e",
                         threshold=0.5, delta=None, suspects=suspects, flag_rule=flag_rule,
                         accounting=accountant.to_dict())


def _printed(summary: dict, width: int = 80) -> str:
    buffer = io.StringIO()
    print_summary(summary, Console(file=buffer, width=width, color_system=None))
    return buffer.getvalue()


def test_members_are_told_apart_in_80_columns():
    text = _printed(_summary([_multilabel_result(n, cached=False) for n in range(1, 4)], flag_rule=MULTI_RULE))
    assert "local:s…" not in text
    for prompt in PROMPTS:
        assert prompt.split("@")[0] in text, text


def test_the_flag_rule_reads_as_one_sentence_in_80_columns():
    text = _printed(_summary([_multilabel_result(1, cached=False)], flag_rule=MULTI_RULE))
    assert MULTI_RULE in " ".join(text.split()), text


def test_per_member_cached_counts_add_up_to_the_summarys_cache_hits():
    summary = _summary([_multilabel_result(n, cached=True) for n in range(1, 4)], flag_rule=MULTI_RULE)
    rows = summary["usage"]["members"]
    assert [r["member"] for r in rows] == list(MEMBERS)  # one row per member x prompt, labels folded in
    assert summary["cache_hits"] == 36 and [r["cached"] for r in rows] == [9, 9, 9, 9]
    assert sum(r["cached"] for r in rows) == summary["cache_hits"]


def _cli(*args: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LABEL_AUDIT_HOME": str(cwd / ".label-audit"), "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "backend.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.llm
def test_a_multilabel_file_scored_twice_in_80_columns(smollm2_path, tmp_path):
    (tmp_path / "topics.xml").write_text(
        '<View><Header value="Which topics does this headline cover?"/><Text name="text" value="$text"/>'
        '<Choices name="topic" toName="text" choice="multiple"><Choice value="Sports"/><Choice value="Politics"/>'
        "</Choices></View>")
    rows = [{"id": "h1", "text": "The striker signed a new contract.", "label": ["Sports"]},
            {"id": "h2", "text": "The minister opened the Olympic stadium.", "label": ["Sports", "Politics"]},
            {"id": "h3", "text": "Parliament votes on the budget.", "label": ["Politics"]}]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "members.yaml").write_text(
        "- provider: local\n  model: smollm2\n  prompts: [generic-annotator, generic-question]\n")
    args = ["score", "items.jsonl", "--label-config", "topics.xml", "--members", "members.yaml",
            "--cache-url", f"sqlite:///{tmp_path / 'cache.sqlite'}"]
    _cli(*args, "--summary-json", "first.json", cwd=tmp_path)
    text = _cli(*args, "--summary-json", "second.json", cwd=tmp_path)
    second = json.loads((tmp_path / "second.json").read_text())
    assert second["llm_calls"] == 0 and second["cache_hits"] == 3 * 2 * 2  # items x labels x prompts
    cached = [r["cached"] for r in second["usage"]["members"]]
    assert cached == [6, 6] and sum(cached) == second["cache_hits"]
    assert "labelstudio" not in text and "topics.xml" in text, text
    assert not re.search(r"local:s\S*…", text), text
    assert "generic-annotator" in text and "generic-question" in text, text


def test_two_models_are_grouped_and_every_prompt_stays_whole_in_80_columns():
    qwen = tuple(f"local:/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf/{p}" for p in PROMPTS)
    results = [ItemResult(id=str(n), original="A", prediction="A", confidence=0.9, probs={"A": 0.9, "B": 0.1},
                          flagged=False, members=tuple(MemberResult(m, probs={"A": 0.9, "B": 0.1}, raw_mass=0.9)
                                                       for m in (*MEMBERS, *qwen)))
               for n in range(3)]
    accountant = Accountant(None, (*MEMBERS, *qwen))
    for result in results:
        accountant.add(result)
    summary = build_summary(tally(results), task="t", members=(*MEMBERS, *qwen), model_version="v", threshold=0.5,
                            delta=None, suspects=SuspectList(), accounting=accountant.to_dict())
    text = _printed(summary)
    assert "…" not in text and "local:qwen2.5-coder-1.5b-instruct-q4_k_m" in text and "local:smollm2" in text
    for prompt in PROMPTS:
        assert text.count(prompt) == 2, text  # once under each model
