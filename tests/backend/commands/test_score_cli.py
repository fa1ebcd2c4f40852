"""`label-audit score` / `demo` end to end with real components.

- the embedded model (in-process llama.cpp) scoring a small file through the CLI, then a re-run that
  makes zero LLM calls;
- a run SIGKILLed mid-way, then resumed: no call lost, none repeated;
- an OpenAI-protocol member against a real llama_cpp.server killed mid-run: the run finishes, failures
  are recorded per member with their reason, and a re-run after the server is back makes only the
  missing calls.
Shapes and bookkeeping are asserted, never verdicts (the 135M model cannot judge).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from backend.scoring.cache import CallCache
from backend.cli import app

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "backend" / "data" / "sample_factual_consistency.jsonl"


def write_dataset(path: Path, n: int, *, bad_lines: bool = False) -> Path:
    rows = [line for line in SAMPLE.read_text().splitlines()[:n]]
    if bad_lines:
        rows.insert(1, "{this is not json")
        rows.append(json.dumps({"id": "bad-label", "grounding": "g", "generated_text": "t", "label": 3}))
    path.write_text("\n".join(rows) + "\n")
    return path


def cli(*args: str, cwd: Path, **popen) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LABEL_AUDIT_HOME": str(cwd / ".label-audit")}
    return subprocess.Popen([sys.executable, "-m", "backend.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **popen)


def run_cli(*args: str, cwd: Path, timeout: float = 300) -> str:
    proc = cli(*args, cwd=cwd)
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out
    return out


def wait_for_cached(url: str, n: int, proc: subprocess.Popen, *, timeout: float = 240) -> int:
    """Poll the cache until it holds at least ``n`` calls (the run is then mid-way)."""
    cache = CallCache(url)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            count = cache.count()
            if count >= n:
                return count
            assert proc.poll() is None, proc.communicate()[0]
            time.sleep(0.05)
        raise AssertionError(f"cache did not reach {n} calls in {timeout}s")
    finally:
        cache.close()


# -- in-process checks that need no model --------------------------------------------------------

def test_rejects_conflicting_member_options(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", 1)
    members = tmp_path / "m.yaml"
    members.write_text("- {provider: local, model: smollm2}\n")
    result = CliRunner().invoke(app, ["score", str(data), "--task", "factual-consistency", "--members", str(members),
                                      "--member", "local:smollm2"])
    assert result.exit_code == 2 and "either --members or --member" in result.output


def test_unknown_task_and_missing_input_are_clear_errors(tmp_path):
    result = CliRunner().invoke(app, ["score", str(tmp_path / "none.jsonl"), "--task", "nope",
                                      "--member", "openai:m@http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and "unknown task spec" in result.output
    result = CliRunner().invoke(app, ["score", str(tmp_path / "none.jsonl"), "--task", "relevance",
                                      "--member", "openai:m@http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and "no such input file" in result.output


def test_a_file_of_bad_records_reports_each_with_its_line(tmp_path):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"id": "a", "query": "q"}\nnot json\n{"id": "c", "query": "q", "passage": "p", "label": 9}\n')
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    result = CliRunner().invoke(app, ["score", str(data), "--task", "relevance", "--member",
                                      "openai:m@http://127.0.0.1:9/v1", "--out", str(out), "--summary-json",
                                      str(summary), "--cache-url", f"sqlite:///{tmp_path / 'c.sqlite'}"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["line"], r["error"].split(":")[0]) for r in rows] == [(1, "missing_field"), (2, "invalid_json"),
                                                                     (3, "bad_label")]
    stats = json.loads(summary.read_text())
    assert (stats["items"], stats["scored"], stats["llm_calls"]) == (3, 0, 0)
    assert stats["errors"] == {"bad_label": 1, "invalid_json": 1, "missing_field": 1}


# -- the embedded model through the CLI ----------------------------------------------------------

@pytest.mark.llm
def test_local_model_end_to_end_then_rerun_makes_zero_calls(smollm2_path, tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", 3, bad_lines=True)
    url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    args = ["score", str(data), "--task", "factual-consistency", "--cache-url", url, "--threshold", "0.5"]
    text = run_cli(*args, "--out", "out.jsonl", "--summary-json", "s1.json", cwd=tmp_path)
    assert "llm_calls" in text and "flagged" in text
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == 5
    good = [r for r in rows if r["error"] is None]
    assert [r["id"] for r in good] == ["fc-01", "fc-02", "fc-03"]
    for r in good:
        assert r["prediction"] in ("0", "1") and set(r["probs"]) == {"0", "1"}
        assert r["confidence"] == pytest.approx(max(r["probs"].values()))
        assert r["original"] in ("0", "1") and isinstance(r["flagged"], bool)
        assert len(r["members"]) == 4 and all(m["probs"] and m["member_id"].startswith("local:smollm2/") for m in r["members"])
    bad = [(r["line"], r["error"].split(":")[0]) for r in rows if r["error"]]
    assert bad == [(2, "invalid_json"), (5, "bad_label")]
    s1 = json.loads((tmp_path / "s1.json").read_text())
    assert (s1["items"], s1["scored"], s1["llm_calls"], s1["cache_hits"]) == (5, 3, 12, 0)
    assert s1["errors"] == {"bad_label": 1, "invalid_json": 1} and s1["flagged"] == sum(r["flagged"] for r in good)
    assert len(s1["model_version"]) == 12 and len(s1["members"]) == 4

    run_cli(*args, "--out", "out2.jsonl", "--summary-json", "s2.json", cwd=tmp_path)
    s2 = json.loads((tmp_path / "s2.json").read_text())
    assert (s2["llm_calls"], s2["cache_hits"], s2["scored"]) == (0, 12, 3)
    rows2 = [json.loads(line) for line in (tmp_path / "out2.jsonl").read_text().splitlines()]
    assert [r["probs"] for r in rows2] == [r["probs"] for r in rows]


@pytest.mark.llm
def test_killed_run_resumes_with_no_lost_and_no_repeated_calls(smollm2_path, tmp_path):
    n_items, total = 6, 24
    data = write_dataset(tmp_path / "d.jsonl", n_items)
    url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    args = ["score", str(data), "--task", "factual-consistency", "--cache-url", url]
    proc = cli(*args, cwd=tmp_path, start_new_session=True)
    try:
        wait_for_cached(url, 4, proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    cache = CallCache(url)
    cached_by_first_run = cache.count()
    cache.close()
    assert 4 <= cached_by_first_run < total, "the run must have been killed mid-way"

    run_cli(*args, "--summary-json", "s.json", cwd=tmp_path)
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["llm_calls"] + cached_by_first_run == total
    assert s["cache_hits"] == cached_by_first_run and s["scored"] == n_items and s["errors"] == {}
    cache = CallCache(url)
    assert cache.count() == total
    cache.close()


# -- an OpenAI-protocol member whose server dies mid-run -----------------------------------------

@pytest.mark.llm
def test_server_killed_mid_run_then_rerun_makes_only_the_missing_calls(private_llama_server, tmp_path):
    server = private_llama_server
    n_items, total = 6, 24
    data = write_dataset(tmp_path / "d.jsonl", n_items)
    url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    args = ["score", str(data), "--task", "factual-consistency", "--cache-url", url,
            "--member", f"openai:smollm2-server@{server.base_url}", "--max-attempts", "2", "--timeout", "30",
            "--concurrency", "4"]
    proc = cli(*args, "--summary-json", "s1.json", "--out", "o1.jsonl", cwd=tmp_path)
    try:
        wait_for_cached(url, 4, proc)
        server.stop()
        out, _ = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    s1 = json.loads((tmp_path / "s1.json").read_text())
    failed = sum(s1["errors"].values())
    outage = {"connection", "server_error", "timeout", "provider_down"}
    assert s1["items"] == n_items and sum(n for r, n in s1["errors"].items() if r in outage) > 0
    # A tiny model over chat sometimes answers without a class token; that is a member error too.
    assert set(s1["errors"]) <= outage | {"no_class_token"}
    rows = [json.loads(line) for line in (tmp_path / "o1.jsonl").read_text().splitlines()]
    member_failures = [m for r in rows for m in r["members"] if m["error"]]
    assert len(member_failures) == failed
    assert all(m["error"] in s1["errors"] and m["error_detail"] and m["probs"] is None for m in member_failures)
    per_member = {}
    for m in member_failures:
        per_member.setdefault(m["member_id"], {}).setdefault(m["error"], 0)
        per_member[m["member_id"]][m["error"]] += 1
    assert per_member == s1["member_errors"]
    cache = CallCache(url)
    cached = cache.count()
    cache.close()
    assert cached == total - failed

    server.start()
    run_cli(*args, "--summary-json", "s2.json", cwd=tmp_path)
    s2 = json.loads((tmp_path / "s2.json").read_text())
    assert s2["llm_calls"] == failed and s2["cache_hits"] == total - failed
    assert set(s2["errors"]) <= {"no_class_token"} and s2["scored"] == n_items


@pytest.mark.llm
def test_demo_scores_the_bundled_sample_and_warns(smollm2_path, tmp_path):
    text = run_cli("demo", "--summary-json", "s.json", "--cache-url", f"sqlite:///{tmp_path / 'c.sqlite'}", cwd=tmp_path)
    s = json.loads((tmp_path / "s.json").read_text())
    assert (s["items"], s["scored"], s["llm_calls"]) == (32, 32, 128)
    text = " ".join(text.split())  # rich wraps lines at the pipe's 80 columns
    assert re.search(r"Planted errors: the ensemble flagged \d+ of 6 .* average precision of the planted errors "
                     r"\d\.\d\d", text)  # the sample's 6 planted errors, counted from the results
    assert "NOT good enough to judge labels" in text and "Per-item latency" in text
    assert "SmolLM2-135M" in text and "Top suspects" in text
    # part 2: the ticket sample, where the confident-learning member finds the planted errors
    assert "Planted label errors found" in text and "cleanlab find_label_issues" in text
    found = re.search(r"cleanlab:tfidf-logreg/features@v1: found (\d+) of 15 planted errors, precision "
                      r"(\d\.\d\d) \(n=(\d+) flagged\)", text)
    assert found and int(found[1]) >= 12 and float(found[2]) >= 0.7  # 15 planted of 150: chance precision 0.1
