"""The one CLI context of the scoring commands: options resolved once into :class:`backend.settings.Settings`.

``score``, ``demo`` and ``probe`` share the member options (``--members`` file or ``--member`` flags,
else the settings' members) and the engine knobs; each option left out keeps the environment's value,
and the environment's absence keeps :mod:`backend.defaults`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

from backend.members import MemberSpec, member_specs_from_config, parse_member_arg
from backend.settings import Settings


#: The one opinion on tokens on the command line: prefer the environment, because an option's value
#: shows in ``ps`` and shell history for every local user.
TOKEN_HELP = ("Label Studio API token. Prefer $LABEL_STUDIO_API_KEY: a token given here is visible to other "
              "local users in `ps` and stays in shell history. Never printed.")


def member_specs(members_file: Optional[Path], member: Optional[Sequence[str]]) -> tuple[MemberSpec, ...] | None:
    """The members the options name (None: the settings decide). ValueError when both are given."""
    if members_file and member:
        raise ValueError("use either --members or --member, not both")
    if members_file:
        return tuple(member_specs_from_config(members_file))
    if member:
        return tuple(parse_member_arg(a) for a in member)
    return None


def run_settings(*, members_file: Optional[Path] = None, member: Optional[Sequence[str]] = None,
                 **options: Any) -> Settings:
    """Settings from the environment with the given command options on top (None = not given)."""
    return Settings.from_env(members=member_specs(members_file, member), **options)
