"""Make text that came from data safe to print through rich.

Item ids, labels and error messages come from user files and remote servers. Printed as rich markup, a
value such as ``[/]`` crashes the command and ``[red]`` restyles the terminal; printed raw, ``ESC[2J`` clears
the screen and an OSC sequence can retitle the window or plant a link. :func:`plain` removes control
characters (keeping tab and newline) and escapes markup, so the value prints exactly as text.

Member ids (``local:/models/qwen.gguf/generic-annotator@v1``) are long and alike at the start: cut to the
width of a terminal column they all read ``local:s…``. :func:`member_cells` splits one into the model (a
file path's stem) and the prompt, so a table shows each in its own column, folded rather than cut.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rich.markup import escape

__all__ = ["member_cells", "plain", "short_model", "strip_controls"]

# C0 controls except tab/newline, DEL, and C1 controls (0x80-0x9f, which include the 8-bit CSI and OSC).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(value: object) -> str:
    """``str(value)`` with terminal control characters replaced by ``?`` (visible, never executed)."""
    return _CONTROLS.sub("?", str(value))


def plain(value: object) -> str:
    """``value`` as rich markup that prints literally: controls neutralised, brackets escaped."""
    return escape(strip_controls(value))


def short_model(model: str) -> str:
    """``provider:model`` as a lead knows it: a model file's path becomes its stem (``local:qwen2.5-...-q4_k_m``)."""
    provider, sep, name = model.partition(":")
    if not sep:
        provider, name = "", model
    if name.endswith(".gguf") or name.startswith(("/", "./", "../", "~")):
        name = PurePosixPath(name).stem
    return f"{provider}:{name}" if provider else name


def member_cells(member_id: str) -> tuple[str, str]:
    """``(model, prompt)`` of a member id ``provider:model/template@vN`` (the prompt empty when it has none)."""
    model, sep, prompt = member_id.rpartition("/")
    if not sep or ":" not in model:
        return member_id, ""
    return short_model(model), prompt
