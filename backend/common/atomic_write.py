"""Write an output file so that readers see either the old file or the complete new one.

Every ``--out`` writer goes through :func:`atomic_write`: the text is written to a temporary file in the
same folder (same file system, so the final ``os.replace`` is atomic), flushed and fsynced, and renamed
over the target only when the ``with`` block finishes without an exception. An error, Ctrl-C or SIGTERM
before that leaves the previous file untouched and removes the temporary one. The standard library has
the pieces (``tempfile``, ``os.replace``) but no context manager that combines them, hence this module.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator, Union

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(
    path: Union[str, os.PathLike], *, encoding: str = "utf-8", newline: str | None = None, binary: bool = False
) -> Iterator[IO[Any]]:
    """Yield a text handle (a binary one with ``binary=True``) whose content replaces ``path`` only if the
    block completes.

    Parameters
    ----------
    path
        The final file. Its folder must exist; the temporary file is created beside it.
    encoding, newline
        Passed to the text handle as in :func:`open` (``newline=""`` for the csv module); unused when binary.
    binary
        Yield a bytes handle (a model file assembled from its parts).
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    mode: dict[str, Any] = {"mode": "wb"} if binary else {"mode": "w", "encoding": encoding, "newline": newline}
    try:
        with os.fdopen(descriptor, **mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _keep_mode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def _keep_mode(target: Path, temporary: str) -> None:
    """Give the new file the old file's permissions (mkstemp creates 0600), or the umask default."""
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)


def _fsync_folder(folder: Path) -> None:
    """Persist the rename itself; not every platform can open a folder, which is fine to skip."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
