"""Build hook only (metadata lives in pyproject.toml): ship the top-level ``prompts/`` folder inside
the wheel as ``backend/_prompts``, a plain copy (no symlinks), so an installed wheel finds the
templates; a checkout (``pip install -e .``) reads ``prompts/`` in place (see backend/scoring/prompting.py)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithPrompts(build_py):
    def run(self):
        super().run()
        source = Path(__file__).resolve().parent / "prompts"
        if source.is_dir() and not getattr(self, "editable_mode", False):
            shutil.copytree(source, Path(self.build_lib) / "backend" / "_prompts", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithPrompts})
