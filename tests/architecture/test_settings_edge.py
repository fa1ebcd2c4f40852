"""Settings are resolved once, at the edges, and passed down: no module below them reads the environment.

An AST scan of backend/ and stats_cli/ for the calls that resolve settings (``from_env``) and the reads of
the process environment (``os.environ``, ``os.getenv``, ``env_value``, ``environment()``). The edges are the
CLI commands, the web app factory and a worker's start (plus the settings module and the environment
reader themselves). A module outside them that gains one fails here: take the value from the settings
its caller passes instead.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Where settings are resolved: each process's entry points, and the two modules that do the resolving.
EDGE = (
    "backend/cli.py", "backend/commands/",  # label-audit's commands
    "stats_cli/cli.py", "stats_cli/commands/",  # audit-stats' commands
    "backend/server/app.py", "backend/server/wsgi.py", "backend/server/gunicorn_run.py",  # the web app's factory
    "backend/worker/start.py",  # a worker's start: its jobs get the settings resolved there
    "backend/demo/run.py",  # the demo command's run: the settings of the worker it starts, from that worker's env
    "backend/config/", "backend/common/environment.py",  # the resolving itself
)

#: Modules that hand their own environment on to a child process they start (Label Studio, Redis, the
#: demo's backend and worker): a pass-through, never a setting read.
CHILD_ENVIRONMENT = {"backend/demo/services.py": 2, "backend/labelstudio/local.py": 1}

READERS = {"env_value", "getenv"}  # by name, also as ``module.name``
SNAPSHOT = "environment"  # backend.common.environment.environment(), called by name (not a method of that name)


def _modules() -> list[tuple[str, ast.AST]]:
    return [(str(p.relative_to(ROOT)), ast.parse(p.read_text("utf-8")))
            for folder in ("backend", "stats_cli") for p in sorted((ROOT / folder).rglob("*.py"))]


def _at_edge(rel: str) -> bool:
    return any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in EDGE)


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def scan(modules: list[tuple[str, ast.AST]]) -> tuple[Counter, Counter]:
    """(``from_env`` calls, environment reads) per module outside the edge."""
    resolves: Counter = Counter()
    reads: Counter = Counter()
    for rel, tree in modules:
        if _at_edge(rel):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called_name(node) == "from_env":
                resolves[rel] += 1
            elif isinstance(node, ast.Call) and (_called_name(node) in READERS or (
                    isinstance(node.func, ast.Name) and node.func.id == SNAPSHOT)):
                reads[rel] += 1
            elif isinstance(node, ast.Attribute) and node.attr == "environ":
                reads[rel] += 1
            elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                    a.name in ("environ", "getenv") for a in node.names):
                reads[rel] += 1
    return resolves, reads


def test_settings_are_resolved_only_at_the_edges():
    resolves, _reads = scan(_modules())
    assert dict(resolves) == {}, "call Settings.from_env at an edge (a command, the app factory, the worker " \
                                 "start) and pass the settings down"


def test_no_module_below_the_edges_reads_the_environment():
    _resolves, reads = scan(_modules())
    new = {rel: n for rel, n in reads.items() if n > CHILD_ENVIRONMENT.get(rel, 0)}
    assert new == {}, "read the value from the settings the caller passes (resolved at an edge)"


def test_the_pass_through_list_is_exact():
    """A child-environment pass-through that goes (or shrinks) is dropped here too, so the list never hides a read."""
    _resolves, reads = scan(_modules())
    stale = {rel: (n, reads.get(rel, 0)) for rel, n in CHILD_ENVIRONMENT.items() if reads.get(rel, 0) < n}
    assert stale == {}, "a pass-through went: lower its count (or drop it) in this test"


def test_the_scan_finds_what_it_looks_for():
    """The scan is real: planted readers and resolvers below the edge are found, the same at an edge are not."""
    planted = ast.parse("import os\nfrom os import getenv\n"
                        "a = os.environ.get('X')\nb = env_value('Y')\nc = getenv('Z')\nd = environment()['W']\n"
                        "s = Settings.from_env()\n")
    resolves, reads = scan([("backend/scoring/planted.py", planted), ("backend/commands/planted.py", planted)])
    assert dict(resolves) == {"backend/scoring/planted.py": 1}
    assert dict(reads) == {"backend/scoring/planted.py": 5}
