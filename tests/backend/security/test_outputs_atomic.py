"""``score --out`` never truncates the previous results before the new run completes: SIGTERM mid-run
leaves the old file whole (real CLI, real local model)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.backend.commands.test_score_cli import cli, wait_for_cached, write_dataset

pytestmark = [pytest.mark.llm]


def test_sigterm_mid_rerun_keeps_the_previous_results(tmp_path: Path, smollm2_path) -> None:
    data = write_dataset(tmp_path / "d.jsonl", 24)
    out = tmp_path / "results.jsonl"
    previous = "".join(f'{{"id": "old-{i}"}}\n' for i in range(24))
    out.write_text(previous)
    url = f"sqlite:///{tmp_path / 'cache.sqlite'}"
    proc = cli("score", str(data), "--task", "factual-consistency", "--cache-url", url, "--out", str(out),
               "--concurrency", "1", cwd=tmp_path)
    try:
        wait_for_cached(url, 2, proc)  # the run is mid-way: calls are being answered
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out.read_text() == previous
