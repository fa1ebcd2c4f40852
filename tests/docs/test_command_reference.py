"""docs/commands.md lists every command of `label-audit` and `audit-stats`, and nothing that is gone.

The commands are walked from the typer apps themselves (every group, to its leaves), so a command added
in ``backend/commands/`` or ``stats_cli/commands/`` without its entry fails here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import typer
from typer.main import get_command

from backend.cli import app as label_audit
from stats_cli.cli import app as audit_stats

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "commands.md"
ENTRY = re.compile(r"^### `([a-z-]+(?: [a-z-]+)+)`$", re.MULTILINE)


def _leaves(command: Any, path: tuple[str, ...]) -> Iterator[str]:
    """Every runnable command under ``command`` (a group's subcommands, recursively)."""
    subcommands = getattr(command, "commands", None)
    if not subcommands:
        yield " ".join(path)
        return
    for name, sub in subcommands.items():
        if not getattr(sub, "hidden", False):
            yield from _leaves(sub, (*path, name))


def cli_commands(apps: dict[str, typer.Typer]) -> set[str]:
    """The full name of every command of these apps (``label-audit review push``)."""
    return {name for root, app in apps.items() for name in _leaves(get_command(app), (root,))}


def listed_commands(text: str) -> set[str]:
    """The commands the reference has an entry for (one ``### `command` `` heading each)."""
    return set(ENTRY.findall(text))


def test_the_walk_finds_nested_commands():
    found = cli_commands({"label-audit": label_audit, "audit-stats": audit_stats})
    assert {"label-audit score", "label-audit review push", "label-audit review instances start",
            "audit-stats report", "audit-stats sync-gold"} <= found
    assert "label-audit review" not in found  # a group is not a command


def test_every_command_has_an_entry_and_every_entry_a_command():
    commands = cli_commands({"label-audit": label_audit, "audit-stats": audit_stats})
    listed = listed_commands(REFERENCE.read_text(encoding="utf-8"))
    assert not commands - listed, f"commands missing from docs/commands.md: {sorted(commands - listed)}"
    assert not listed - commands, f"docs/commands.md lists commands that do not exist: {sorted(listed - commands)}"


def test_a_missing_entry_is_caught():
    app = typer.Typer()

    @app.command()
    def first() -> None:
        """One."""

    @app.command()
    def second() -> None:
        """Two."""

    commands = cli_commands({"tool": app})
    assert commands == {"tool first", "tool second"}
    assert commands - listed_commands("### `tool first`\n") == {"tool second"}
