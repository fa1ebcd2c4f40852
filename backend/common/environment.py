"""The one place the program reads its process environment.

Kept apart from :mod:`backend.config.settings` (which imports the members and prompts) so that it sits in
the lowest layer. :class:`backend.config.settings.Settings` takes its snapshot through :func:`environment`;
the edges (a command, the app factory, a worker's start) read the odd single value with :func:`env_value`.
Nothing below the edges calls either (``tests/architecture/test_settings_edge.py``): they receive the values.
"""

from __future__ import annotations

import os
from typing import Mapping

__all__ = ["TOKEN_HELP", "environment", "env_value", "parse_bool", "passive_openmp"]

#: Help of every command's ``--token`` option (label-audit's and audit-stats'): where the token should come from.
TOKEN_HELP = ("Label Studio API token. Prefer $LABEL_STUDIO_API_KEY: a token given here is visible to other "
              "local users in `ps` and stays in shell history. Never printed.")


def environment() -> Mapping[str, str]:
    """A snapshot of the process environment."""
    return dict(os.environ)


def env_value(name: str) -> str | None:
    """The value of one environment variable, or None when unset or empty (for an edge only)."""
    return os.environ.get(name) or None


def parse_bool(text: str | None) -> bool:
    """``1/true/yes/on`` (any case) is True; anything else, or unset, is False."""
    return (text or "").strip().lower() in {"1", "true", "yes", "on"}


def passive_openmp() -> None:
    """Make OpenMP threads wait passively (``OMP_WAIT_POLICY=PASSIVE``) unless the user chose a policy.

    llama.cpp's OpenMP threads busy-wait by default; on a busy 2-core machine that made one call 5x
    slower (12.8 s vs 2.4 s for 211 tokens, measured). libgomp reads the variable when it loads with
    llama_cpp, so the local provider calls this as it is imported. A write, kept with the reads here.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
