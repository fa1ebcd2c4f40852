"""The install's self-check: the llama.cpp build scores a prompt in a child process (a SIGILL would kill it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.llm

ROOT = Path(__file__).resolve().parents[3]


def test_the_installed_build_scores_one_prompt_on_this_cpu() -> None:
    proc = subprocess.run([sys.executable, "-m", "backend.providers.llama_check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    # A build using instructions this CPU does not run dies by signal: returncode -4 (SIGILL), no output.
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout.startswith("llama.cpp runs on this CPU (method ")
    mass = float(proc.stdout.rsplit(" ", 1)[1].rstrip(")\n"))
    assert 0.0 < mass <= 1.0
