"""Where the commands that start local services (the demo, the experts' review instances) keep them.

Read at the command (the edge) from the environment alone, without the rest of the settings: stopping a
demo must not fail on an unrelated setting, and these commands start quickly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from backend.common.environment import env_value

__all__ = ["local_home", "local_label_studio_bin"]


def local_home(home: Optional[Path]) -> Path | str | None:
    """``--home``, else ``$LABEL_AUDIT_HOME`` (None: the default home): where the demo and the local review
    instances keep their folders."""
    return home or env_value("LABEL_AUDIT_HOME")


def local_label_studio_bin() -> str | None:
    """``$LABEL_STUDIO_BIN``: the Label Studio the demo and the local review instances start (None: the
    cached venvs, :func:`backend.labelstudio.local.find_label_studio_bin`)."""
    return env_value("LABEL_STUDIO_BIN")
