"""The atomic writer: the old file survives an error or a kill mid-write; success replaces it whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backend.common.atomic_write import atomic_write


def test_success_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with atomic_write(target) as handle:
        handle.write("new\n")
        assert target.read_text() == "old\n"  # nothing visible until the block ends
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_an_error_in_the_block_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("a,b\n1,2\n")
    with pytest.raises(RuntimeError):
        with atomic_write(target, newline="") as handle:
            handle.write("partial")
            raise RuntimeError("scoring failed")
    assert target.read_text() == "a,b\n1,2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_a_new_file_gets_normal_permissions(tmp_path: Path) -> None:
    target = tmp_path / "fresh.txt"
    with atomic_write(target) as handle:
        handle.write("x")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_sigterm_mid_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "results.jsonl"
    target.write_text("".join(f'{{"id": {i}}}\n' for i in range(24)))
    before = target.read_text()
    script = (
        "import sys, time\n"
        "from backend.common.atomic_write import atomic_write\n"
        "with atomic_write(sys.argv[1]) as handle:\n"
        "    handle.write('first line\\n'); handle.flush()\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    child = subprocess.Popen([sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "writing"
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=10)
    time.sleep(0.1)
    assert target.read_text() == before
