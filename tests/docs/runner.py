"""Run a document's ```bash blocks in order, as a reader would type them into one terminal.

Each block runs in its own ``bash`` (``set -eo pipefail``: a failing line fails the block, as the reader
would see it) with a timeout; the exported variables of one block carry over to the next, and what a
block leaves running in the background (``label-audit worker &``) lives until the document is done,
when its whole process group is stopped. Output goes to a file, never a pipe, so a background process
holding the pipe open cannot hang the test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from tests.docs.blocks import Action, Block, steps


@dataclass
class Outcome:
    """One block's run: exit code (None on timeout), seconds, and its output (secrets redacted)."""

    block: Block
    returncode: int | None
    seconds: float
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass
class Session:
    """One document's terminal: a working directory, the environment, and the process groups left behind."""

    cwd: Path
    env: dict[str, str]
    secrets: tuple[str, ...] = ()
    timeout: float = 300.0
    groups: list[int] = field(default_factory=list)

    def run(self, block: Block) -> Outcome:
        n = len(self.groups)
        env_in, env_out = self.cwd / f".docs-env-{n}", self.cwd / f".docs-env-{n + 1}"
        if not env_in.exists():
            env_in.write_text("")
        script = self.cwd / f".docs-block-{n}.sh"
        script.write_text(f"set -eo pipefail\nsource {env_in}\n{block.text}\nexport -p > {env_out}\n")
        log = self.cwd / f".docs-block-{n}.log"
        started = time.monotonic()
        with log.open("wb") as out:
            proc = subprocess.Popen(["bash", str(script)], cwd=self.cwd, env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.groups.append(proc.pid)
        try:
            code: int | None = proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _stop_group(proc.pid)
            proc.wait()
            code = None
        if code == 0 and not env_out.exists():
            code = -1  # the block exited early (an `exit` in it): what follows it never ran
        if code != 0:
            env_out.write_text(env_in.read_text())
        return Outcome(block, code, time.monotonic() - started, self.redact(log.read_text(errors="replace")))

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            if secret:
                text = text.replace(secret, "<redacted>")
        return "\n".join("<a line naming a password, redacted>" if "password" in line.lower() else line
                         for line in text.splitlines())

    def close(self) -> None:
        """Stop everything the document's blocks left running (their process groups)."""
        for pgid in self.groups:
            _stop_group(pgid, sig=signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_group_alive(g) for g in self.groups):
            time.sleep(0.2)
        for pgid in self.groups:
            _stop_group(pgid)


def run_document(path: Path, session: Session, *,
                 actions: Mapping[str, Callable[[], None]]) -> list[Outcome]:
    """Every runnable block of ``path`` in order, and the marked actions between them; stops at a failure."""
    outcomes: list[Outcome] = []
    for step in steps(path):
        if isinstance(step, Action):
            actions[step.name]()
        elif step.runnable:
            outcomes.append(session.run(step))
            if not outcomes[-1].ok:
                break
    return outcomes


def _stop_group(pgid: int, *, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
