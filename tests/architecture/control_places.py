"""Where a control tag is named in the product code: the files a new control type has to touch.

A file names a control when one of its string constants (docstrings and f-string text aside) is the tag
(``"Rating"``), one of its family names or its result type (``"rating"``): a registry entry, a dispatch
(``if tag == "Pairwise"``) or a family-name test. Run it on a tree to measure it:
``PYTHONPATH=. python -m tests.architecture.control_places [ROOT]``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGES = ("backend", "stats_cli")
#: The per-item controls beside ``<Choices>``, with the names their code is keyed by (tag, family, result type).
CONTROL_NAMES: dict[str, frozenset[str]] = {
    "Rating": frozenset({"Rating", "rating"}),
    "Number": frozenset({"Number", "number"}),
    "Pairwise": frozenset({"Pairwise", "pairwise"}),
}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _strings(tree: ast.AST) -> set[str]:
    """The file's string constants outside docstrings and f-strings."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in skip}


def control_places(root: Path) -> dict[str, list[str]]:
    """Control tag -> the product files (relative paths) naming it."""
    places: dict[str, list[str]] = {tag: [] for tag in CONTROL_NAMES}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            strings = _strings(ast.parse(path.read_text(encoding="utf-8")))
            for tag, names in CONTROL_NAMES.items():
                if strings & names:
                    places[tag].append(str(path.relative_to(root)))
    return places


def main(argv: list[str]) -> None:
    root = Path(argv[0] if argv else ".").resolve()
    for tag, files in control_places(root).items():
        print(f"<{tag}>: {len(files)} files")
        for name in files:
            print(f"  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
