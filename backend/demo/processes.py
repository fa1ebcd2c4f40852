"""Background processes the demo starts and later stops: recorded by pid *and* start time.

A pid alone can be reused by an unrelated process after a reboot or a crash; the kernel's start time
(``/proc/<pid>/stat`` field 22) makes a record match only the process the demo started, so ``--stop``
never signals anything else. Every process gets its own session: Label Studio forks a server child and
an rq worker forks "work horses" into sessions of their own, so stopping walks the descendants too.
Linux only (``/proc``), like the services the demo drives.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from backend.common.private_files import PRIVATE_UMASK, private_dir


@dataclass(frozen=True)
class ProcessRecord:
    """One started process: what it is, its pid and the kernel's start time of that pid."""

    name: str
    pid: int
    start_ticks: int

    def alive(self) -> bool:
        """True when this exact process still runs (not a zombie, not a reused pid)."""
        stat = _stat(self.pid)
        return stat is not None and stat[1] == self.start_ticks and stat[0] != "Z"


def _stat(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in clock ticks) of ``pid``, or None when it does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = text.rsplit(")", 1)[1].split()
    return rest[0], int(rest[19])


def descendants(pid: int) -> list[int]:
    """Pids of every live descendant of ``pid`` (its children's sessions included)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class ProcessTable:
    """The demo's pid files: ``<folder>/<name>.json`` holding a :class:`ProcessRecord`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def get(self, name: str) -> ProcessRecord | None:
        """The record of ``name`` when its process still runs (a stale file is removed)."""
        path = self._path(name)
        try:
            record = ProcessRecord(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if record.alive():
            return record
        path.unlink(missing_ok=True)
        return None

    def records(self) -> list[ProcessRecord]:
        """Every recorded process that still runs."""
        if not self.folder.is_dir():
            return []
        found = (self.get(p.stem) for p in sorted(self.folder.glob("*.json")))
        return [r for r in found if r is not None]

    def spawn(self, name: str, cmd: Sequence[str], *, env: Mapping[str, str], log: Path, cwd: Path) -> ProcessRecord:
        """Start ``cmd`` in its own session, detached from this process, and record it."""
        private_dir(self.folder)
        private_dir(log.parent)
        with open(os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as out:
            proc = subprocess.Popen(list(cmd), env=dict(env), stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=cwd, start_new_session=True,
                                    umask=PRIVATE_UMASK)  # what it writes (databases, logs) is the owner's only
        return self.adopt(name, proc.pid)

    def adopt(self, name: str, pid: int) -> ProcessRecord:
        """Record a process this demo started by other means (e.g. Label Studio's launcher)."""
        stat = _stat(pid)
        if stat is None:
            raise RuntimeError(f"{name} exited at once")
        record = ProcessRecord(name=name, pid=pid, start_ticks=stat[1])
        self.folder.mkdir(parents=True, exist_ok=True)
        self._path(name).write_text(json.dumps(record.__dict__))
        return record

    def stop(self, name: str, *, timeout: float = 20.0) -> bool:
        """Stop ``name`` and its descendants (SIGTERM, then SIGKILL); False when it was not running."""
        record = self.get(name)
        if record is None:
            return False
        tree = descendants(record.pid)
        _signal_all(record, tree, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (record.alive() or any(_running(p) for p in tree)):
            time.sleep(0.2)
        if record.alive():
            tree = list(dict.fromkeys([*tree, *descendants(record.pid)]))
        _signal_all(record, [p for p in tree if _running(p)], signal.SIGKILL)
        self._path(name).unlink(missing_ok=True)
        return True


def _running(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _signal_all(record: ProcessRecord, tree: Sequence[int], sig: int) -> None:
    """Signal the recorded process's group (only while that process itself runs, so a reused pid is
    never a target), then each descendant found while it ran."""
    if record.alive():
        try:
            os.killpg(record.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    for pid in tree:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
