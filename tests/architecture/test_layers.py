"""The folders of backend/ and stats_cli/ form layers, and no module imports itself round a cycle.

Why: an import that climbs (a provider reaching for the review loop, the engine for the cost report) or a
cycle hidden in a function body makes every layer depend on every other; then nothing can be read, tested
or replaced on its own. The rules are read off the source with :mod:`ast`, so a new import that breaks
them fails here with its file and line.

What counts:

- Layers (a): every import at any depth — module level, inside functions, and under ``TYPE_CHECKING``
  (a type names a dependency as much as a call does).
- Cycles (b): the imports that run when a module is imported — module level, not inside functions, not
  under ``TYPE_CHECKING`` (those never run, so they cannot make an import order fail). Importing
  ``a.b.c`` also runs package ``a.b``'s ``__init__``, so it counts as importing that too, unless the
  importing module is inside ``a.b`` (then the package is already loaded).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("backend", "stats_cli")

#: The layers of ``backend/``, lowest first; a folder may import its own layer's folders and lower ones.
#: ``api`` and ``cli`` are the modules at the backend root; ``stats_cli`` is the whole statistics package.
BACKEND_LAYERS: list[set[str]] = [
    {"common", "estimates"},
    {"controls"},
    {"sqlstore"},
    {"providers"},
    {"task"},
    {"scoring"},
    {"ledger", "spans", "config"},
    {"families"},
    {"probes", "images"},
    {"labelstudio"},
    {"review", "confident", "costs"},
    {"summaries", "api"},
    {"stats_cli", "worker"},
    {"server", "demo"},
    {"commands"},
    {"cli"},
]

#: The layers inside ``stats_cli/``, lowest first (``cli`` is the module at its root).
STATS_LAYERS: list[set[str]] = [
    {"stats"},
    {"sources"},
    {"report"},
    {"commands"},
    {"cli"},
]

#: Climbing imports known today, each with why it is still there; the test fails when one goes (remove it here).
KNOWN_CLIMBS: dict[tuple[str, str], str] = {
    ("backend.task.family", "backend.scoring.results"):
        "typing only: the family interface names the verdict type ItemResult; goes when ItemResult moves"
        " below task (backend/worker imports it from scoring and is being reworked)",
}


@dataclass(frozen=True)
class Import:
    """One import statement's target module, where it is, and whether it runs at import time."""

    source: str
    target: str
    path: Path
    line: int
    at_import_time: bool


def module_name(path: Path) -> str:
    """``backend/task/spec.py`` -> ``backend.task.spec``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    """Every module of the two packages, by dotted name."""
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    """The project modules an import statement loads (``from pkg import mod`` loads ``pkg.mod``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[:len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import of a project module in ``path``, at any depth."""
    found: list[Import] = []

    def visit(node: ast.AST, runs: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child):
                for part in child.body:
                    visit(ast.Module(body=[part], type_ignores=[]), False)
                for part in child.orelse:
                    visit(ast.Module(body=[part], type_ignores=[]), runs)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(child, module, path.name == "__init__.py", modules):
                    if target.split(".")[0] in PACKAGES:
                        found.append(Import(module, target, path, child.lineno, runs))
            else:
                visit(child, runs)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), True)
    return found


def all_imports() -> list[Import]:
    modules = all_modules()
    return [imp for name, path in modules.items() for imp in imports_of(name, path, modules)]


def folder_of(module: str) -> tuple[str, str] | None:
    """``(package, folder)`` of a module: ``backend.task.spec`` -> ``("backend", "task")``; the roots' modules
    are folders of their own (``backend.cli`` -> ``("backend", "cli")``); the package itself -> None."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    return parts[0], parts[1]


def layer_of(module: str) -> tuple[str, int] | None:
    """Where a module sits: the layer list it belongs to and its index there (None: a package root)."""
    where = folder_of(module)
    if where is None:
        return None
    package, folder = where
    layers = BACKEND_LAYERS if package == "backend" else STATS_LAYERS
    for index, members in enumerate(layers):
        if folder in members:
            return package, index
    raise AssertionError(f"{module}: folder {package}/{folder} is in no layer; add it to {package.upper()} layers")


def climbing(imports: list[Import], *, known: dict[tuple[str, str], str] | None = None) -> list[str]:
    """Imports from a folder to a higher layer, as ``file:line: source -> target`` (but the ``known`` ones)."""
    bad = []
    for imp in imports:
        if (imp.source, imp.target) in (known or {}):
            continue
        source, target = folder_of(imp.source), folder_of(imp.target)
        if source is None or target is None:
            continue
        if source[0] != target[0]:
            # Between the packages, stats_cli is one folder of the backend's layers.
            source_layer = layer_of(imp.source) if source[0] == "backend" else ("backend", _stats_cli_layer())
            target_layer = layer_of(imp.target) if target[0] == "backend" else ("backend", _stats_cli_layer())
        else:
            source_layer, target_layer = layer_of(imp.source), layer_of(imp.target)
        if source_layer and target_layer and target_layer[1] > source_layer[1]:
            bad.append(f"{imp.path.relative_to(ROOT)}:{imp.line}: {imp.source} -> {imp.target}")
    return list(dict.fromkeys(bad))


def _stats_cli_layer() -> int:
    return next(i for i, members in enumerate(BACKEND_LAYERS) if "stats_cli" in members)


def cycles(imports: list[Import], modules: dict[str, Path]) -> list[list[str]]:
    """The groups of modules that import each other round a cycle at import time (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for imp in imports:
        if not imp.at_import_time:
            continue
        parts = imp.target.split(".")
        for end in range(2, len(parts) + 1):  # the packages on the way run too
            loaded = ".".join(parts[:end])
            inside = imp.source.startswith(loaded + ".") and loaded != imp.target
            if loaded in modules and loaded != imp.source and not inside:
                graph[imp.source].add(loaded)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            connect(name)
    return found


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


def test_every_folder_is_in_a_layer() -> None:
    for name in all_modules():
        layer_of(name)  # raises naming the folder


def test_no_import_climbs_a_layer(imports: list[Import]) -> None:
    bad = climbing(imports, known=KNOWN_CLIMBS)
    assert not bad, "imports from a lower layer to a higher one:\n" + "\n".join(bad)


def test_known_climbs_are_still_there(imports: list[Import]) -> None:
    """A known climb that was removed must leave :data:`KNOWN_CLIMBS` too, so the list only shrinks."""
    present = {(imp.source, imp.target) for imp in imports}
    gone = [f"{source} -> {target}" for source, target in KNOWN_CLIMBS if (source, target) not in present]
    assert not gone, "no longer imported, remove from KNOWN_CLIMBS: " + ", ".join(gone)


def test_no_import_cycle(imports: list[Import]) -> None:
    found = cycles(imports, all_modules())
    assert not found, "modules that import each other at import time:\n" + "\n".join(" <-> ".join(g) for g in found)


def test_a_climbing_import_is_caught(tmp_path: Path) -> None:
    """The check itself: an import from the lowest folder to the highest is reported with file and line."""
    path = ROOT / "backend" / "common" / "labels.py"
    planted = Import("backend.common.labels", "backend.commands.score", path, 7, True)
    assert climbing([planted]) == ["backend/common/labels.py:7: backend.common.labels -> backend.commands.score"]
    loop = [Import("backend.task.spec", "backend.task.family", path, 1, True),
            Import("backend.task.family", "backend.task.spec", path, 2, True)]
    assert cycles(loop, {"backend.task.spec": path, "backend.task.family": path}) == [
        ["backend.task.family", "backend.task.spec"]]
