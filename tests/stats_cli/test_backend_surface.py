"""stats_cli reaches the backend only through backend.api, and every name there resolves."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import backend.api as api

STATS_CLI = Path(__file__).resolve().parents[2] / "stats_cli"


def _backend_imports() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(STATS_CLI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "backend":
                found.append((str(path.relative_to(STATS_CLI)), node.lineno, node.module))
            elif isinstance(node, ast.Import):
                found += [(str(path.relative_to(STATS_CLI)), node.lineno, a.name) for a in node.names
                          if a.name.split(".")[0] == "backend"]
    return found


def test_stats_cli_imports_the_backend_only_through_its_public_surface():
    imports = _backend_imports()
    assert imports, "stats_cli uses the backend; the scan found no import at all"
    assert [i for i in imports if i[2] != "backend.api"] == []


def test_every_public_name_resolves_to_its_owner():
    for name in api.__all__:
        value = getattr(api, name)
        owner = importlib.import_module(api._SURFACE[name])
        assert value is getattr(owner, name, None) or value is importlib.import_module(f"{api._SURFACE[name]}.{name}")


def test_an_unknown_name_says_where_the_surface_is():
    try:
        api.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "backend.api.__all__" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_the_surface_loads_nothing_until_a_name_is_used():
    code = "import sys, backend.api; print('label_studio_sdk' in sys.modules, 'sqlalchemy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
