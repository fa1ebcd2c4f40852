"""What README's install gives: the runtime dependencies carry everything a documented command imports."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]


def test_runtime_install_includes_the_llama_cpp_server_extra():
    """docs/reference.md starts `python -m llama_cpp.server`; without the extra it dies on `import uvicorn`."""
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    llama = [Requirement(d) for d in deps if Requirement(d).name == "llama-cpp-python"]
    assert len(llama) == 1 and "server" in llama[0].extras
    assert "python -m llama_cpp.server" in (REPO / "docs" / "reference.md").read_text()
