"""Is a model file the one its table names? Its SHA-256, checked at first use and remembered by size and mtime.

A file of the right size is not necessarily the verified one: a copy by hand, a disk error or a file put
in the models folder by anything other than the installer has the size and not the content. Hashing
1.1 GB takes seconds, too long for every run, so a verified file is remembered in a record beside it
(``.<file>.verified``: its size, mtime and SHA-256); a run whose file still has that size and mtime reads
the record instead of the file. The installer writes the record when it puts a file in place (it has
just hashed it), so the first run after an install reads nothing either.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from backend.common.atomic_write import atomic_write

__all__ = ["file_digest", "forget_verified", "record_verified", "verified_digest"]

CHUNK = 1 << 20  # bytes read and hashed at a time: the memory used stays flat whatever the model's size


def file_digest(path: Path) -> str:
    """SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _record_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.verified")


def _stamp(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def record_verified(path: Path, sha256: str) -> None:
    """Remember that ``path``, as it is now, has ``sha256`` (a folder that cannot be written: not remembered)."""
    with contextlib.suppress(OSError):
        with atomic_write(_record_path(path)) as out:
            json.dump({**_stamp(path), "sha256": sha256}, out)


def verified_digest(path: Path) -> str:
    """``path``'s SHA-256: the record's when the file still has the size and mtime it was hashed at, else
    hashed now (and remembered)."""
    stamp = _stamp(path)
    with contextlib.suppress(OSError, ValueError, TypeError):
        record = json.loads(_record_path(path).read_text())
        if {k: record.get(k) for k in stamp} == stamp and isinstance(record.get("sha256"), str):
            return record["sha256"]
    digest = file_digest(path)
    if _stamp(path) == stamp:  # unchanged while it was read
        record_verified(path, digest)
    return digest


def forget_verified(path: Path) -> None:
    """Drop ``path``'s record (the file is being replaced)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_record_path(path))
