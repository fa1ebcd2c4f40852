"""One way for every command to stop with an error line: ``error: <message>`` on stderr, exit code 2.

Shared by ``label-audit`` and ``audit-stats`` commands so the wording, the exit code and the escaping of
data inside the message are the same everywhere (the message may hold an item id or a server's reply:
it is printed as text, never as rich markup or terminal control sequences).
"""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

from backend.common.terminal_text import plain

__all__ = ["fail", "EXIT_USAGE"]

EXIT_USAGE = 2


def fail(message: str, *, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``error: message`` to stderr and leave the command with ``code``."""
    Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {plain(message)}")
    raise typer.Exit(code)
