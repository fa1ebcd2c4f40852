"""Label Studio's own template configs, read from the installed Label Studio 1.23.2 package.

The shape tests answer the configs a new user starts from (the *LLM Response Grading*, *Human Preference
collection for RLHF* and *Taxonomy* templates...), so they read them from the package the session's server
runs, never from a copy that could drift: ``<venv>/lib/python3.*/site-packages/label_studio/annotation_templates``
next to the ``label-studio`` executable. A template's ``config.yml`` holds the config under ``config``; a few
community templates keep it in ``config.xml``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from backend.labelstudio.local import find_label_studio_bin


def templates_dir() -> Path:
    """The installed package's ``annotation_templates`` folder; skips the test when there is none."""
    binary = find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN"))
    if binary is not None:
        for folder in sorted(binary.parent.parent.glob("lib/python3*/site-packages/label_studio/annotation_templates")):
            return folder
    pytest.skip("Label Studio's annotation templates not found next to the label-studio executable")


def template_config(name: str) -> str:
    """The label config of template ``name`` (its folder, e.g. ``generative-ai/response-grading``)."""
    folder = templates_dir() / name
    xml = folder / "config.xml"
    if xml.is_file():
        return xml.read_text(encoding="utf-8")
    return yaml.safe_load((folder / "config.yml").read_text(encoding="utf-8"))["config"]
