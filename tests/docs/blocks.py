"""The fenced code blocks of README.md and docs/*.md, and the convention every shell block follows.

A ```` ```bash ```` block is run by ``tests/test_docs_commands.py`` exactly as written; a block that cannot
run here (a cloud key, docker, a server that never exits, the test suite itself) is fenced
```` ```bash norun ````. Any other shell fence (``sh``, ``shell``, ``console``, ``bash skip``...) and any
unlabelled block that holds a command are refused, so a command can never slip past the test by being
fenced differently. Written by hand: a Markdown parser would give the blocks but not the convention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUN, NORUN = "bash", "bash norun"
SHELL_FENCES = {"bash", "sh", "shell", "zsh", "console", "shell-session", "terminal"}
# A line starting with one of these in an unlabelled block is a command that escaped the convention.
COMMAND_START = re.compile(r"^\s*(\$ |label-audit\b|audit-stats\b|bash\b|source\b|export\b|\.venv/|docker\b|pip\b|"
                           r"python3?\b|curl\b|rq\b|redis-server\b|label-studio\b|cd\b)")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
# A step a person does between two blocks (the test plays it): <!-- docs-test: experts answer -->
ACTION = re.compile(r"<!--\s*docs-test:\s*(?P<name>[a-z ]+?)\s*-->")
ACTIONS = ("experts answer",)


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts (1-based line of the fence), its info string and its text."""

    path: Path
    line: int
    info: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.info == RUN


@dataclass(frozen=True)
class Action:
    """A person's step marked in the Markdown (an HTML comment, invisible when rendered)."""

    path: Path
    line: int
    name: str


def documents(repo: Path) -> list[Path]:
    """README.md first (the path a new user follows), then docs/*.md by name."""
    return [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]


def steps(path: Path) -> list[Block | Action]:
    """Every fenced block and marked action of ``path``, in document order.

    Fences inside list items are indented: the indent of the opening fence is removed from the body.
    """
    out: list[Block | Action] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            if action := ACTION.search(lines[i]):
                out.append(Action(path, i + 1, action["name"]))
            i += 1
            continue
        indent, fence = match["indent"], match["fence"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not re.match(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        out.append(Block(path, i + 1, " ".join(match["info"].split()), "\n".join(body) + "\n"))
        i = j + 1
    return out


def blocks(path: Path) -> list[Block]:
    return [s for s in steps(path) if isinstance(s, Block)]


def convention_errors(path: Path) -> list[str]:
    """Why a block of ``path`` breaks the convention (empty when every shell block is bash or bash norun)."""
    errors = []
    for step in steps(path):
        if isinstance(step, Action):
            if step.name not in ACTIONS:
                errors.append(f"{path.name}:{step.line}: unknown docs-test action {step.name!r} (known: {ACTIONS})")
            continue
        lang = step.info.split(" ", 1)[0].lower() if step.info else ""
        if lang in SHELL_FENCES and step.info not in (RUN, NORUN):
            errors.append(f"{step.where}: shell block fenced {step.info!r}: use ```bash (run by the README test) "
                          "or ```bash norun (cloud key, docker, a server that never exits)")
        elif not lang and any(COMMAND_START.match(line) for line in step.text.splitlines()):
            errors.append(f"{step.where}: unlabelled block holding a command: fence it ```bash or ```bash norun")
    return errors
