"""Folders and files that hold secrets: created 0700 / 0600, whoever creates the files in them.

Label Studio's SQLite database holds its users' API tokens (and the ML backend's basic-auth password
in its ML-backend rows); it is created by the Label Studio process, not by us, with that process's
umask (0644 in a 0755 folder under the usual 0022). So every process label-audit starts that writes
secrets gets umask 0077 (:data:`PRIVATE_UMASK`, ``subprocess.Popen(umask=...)``), and every folder it
writes into is made 0700 by :func:`private_dir` (also when it existed with looser permissions).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
import json

PRIVATE_UMASK = 0o077


def private_dir(path: str | Path) -> Path:
    """Create ``path`` (and parents) and make it 0700; returns it."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    return folder


def private_file(path: str | Path) -> Path:
    """Make an existing file 0600 (a file created before this release kept its old mode)."""
    target = Path(path)
    if target.exists():
        os.chmod(target, 0o600)
    return target


def write_private_json(path: str | Path, data: object) -> Path:
    """Write JSON readable by the owner only: the mode is set at creation, then the file is swapped in."""
    target = Path(path)
    private_dir(target.parent)
    tmp = target.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.chmod(tmp, 0o600)
    os.replace(tmp, target)
    return target


def runtime_dir(base: str | None) -> Path:
    """A 0700 folder for sockets, owned by this user: under ``base`` (``$XDG_RUNTIME_DIR``, read by the
    caller) when it is a folder, else ``<tmp>/label-audit-<uid>``.

    Unix socket paths are limited to about 100 bytes, so sockets cannot live under any home folder.
    Refuses (ValueError) a folder owned by someone else (a planted one in a shared /tmp).
    """
    folder = Path(base) / "label-audit" if base and os.path.isdir(base) else (
        Path(tempfile.gettempdir()) / f"label-audit-{os.getuid()}")
    private_dir(folder)
    if folder.stat().st_uid != os.getuid():
        raise ValueError(f"{folder} belongs to another user: refusing to put a control socket there")
    return folder
