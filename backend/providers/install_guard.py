"""What surrounds one model install: one at a time per model, no temporary file left behind.

Two installs of one model share its parts folder and its target: run together, each removed or rewrote
what the other was reading, and both failed. :func:`install_lock` makes the second wait for the first
(a ``flock`` on a file in the models folder, released by the kernel when a process dies), after which it
finds the verified file and has nothing to do. The assembled file is written to a temporary file that an
exception removes (:func:`backend.common.atomic_write.atomic_write`), but SIGTERM's default action ends the
process without one, and left 1.1 GB behind: :func:`terminate_raises` turns SIGTERM into ``SystemExit``
while an install runs, and :func:`remove_stale_temporaries` removes what a killed (``SIGKILL``, power
loss) install left, on the next run, under the lock, so never a running install's file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import threading
from pathlib import Path
from typing import Callable, Iterator

__all__ = ["install_lock", "remove_stale_temporaries", "terminate_raises"]


@contextlib.contextmanager
def install_lock(folder: Path, name: str, *, say: Callable[[str], None] = lambda _: None) -> Iterator[None]:
    """Hold the install lock of model ``name`` in ``folder`` (waiting, and saying so, while another holds it)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(os.open(folder / f".{name}.install.lock", os.O_RDWR | os.O_CREAT, 0o600)) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"another install of {name!r} is running: waiting for it to finish")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def remove_stale_temporaries(target: Path, *, say: Callable[[str], None] = lambda _: None) -> int:
    """Remove the temporary files an interrupted assembly of ``target`` left (call it holding the lock)."""
    removed = 0
    for stale in target.parent.glob(f".{target.name}.*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            size = stale.stat().st_size
            stale.unlink()
            removed += 1
            say(f"removed {stale.name} ({size / 1e6:,.0f} MB) left by an interrupted install")
    return removed


def _raise_exit(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def terminate_raises() -> Iterator[None]:
    """Within the block SIGTERM raises ``SystemExit`` (so cleanup runs); outside the main thread, no change
    (only the main thread can set a handler, and only it receives the signal)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
