"""Make text that came from data safe to print through rich.

Item ids, labels and error messages come from user files and remote servers. Printed as rich markup, a
value such as ``[/]`` crashes the command and ``[red]`` restyles the terminal; printed raw, ``ESC[2J`` clears
the screen and an OSC sequence can retitle the window or plant a link. :func:`plain` removes control
characters (keeping tab and newline) and escapes markup, so the value prints exactly as text.
"""

from __future__ import annotations

import re

from rich.markup import escape

__all__ = ["plain", "strip_controls"]

# C0 controls except tab/newline, DEL, and C1 controls (0x80-0x9f, which include the 8-bit CSI and OSC).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(value: object) -> str:
    """``str(value)`` with terminal control characters replaced by ``?`` (visible, never executed)."""
    return _CONTROLS.sub("?", str(value))


def plain(value: object) -> str:
    """``value`` as rich markup that prints literally: controls neutralised, brackets escaped."""
    return escape(strip_controls(value))
