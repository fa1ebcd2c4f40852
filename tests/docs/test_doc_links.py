"""Every relative link of README.md, CONTRIBUTING.md and docs/*.md resolves, every citation of a doc section in
the code (``docs/architecture.md#the-answer-cue``) too, and docs/index.md lists every doc.

Why the names too: files move (the backend's root became folders), and a doc or a module docstring that still
names the old place sends a reader to nothing. So every repository path written as inline code
(`` `backend/task/spec.py` ``) and every dotted module name (`` `backend.task.spec` ``,
``backend.task.spec.TaskSpec``) in README.md, CONTRIBUTING.md, SECURITY.md, docs/*.md and the module docstrings
of ``backend/``, ``stats_cli/`` and ``tests/`` must name a real file, folder, module or module-level name.

A link's file must exist; a link into a Markdown file with an anchor must name one of its headings (GitHub's
anchor of a heading: lower case, punctuation dropped, spaces to hyphens). Links inside code blocks and
inline code are text, not links.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
CITATION = re.compile(r"\b(docs/[a-z0-9-]+\.md)#([a-z0-9-]+)")
CODE_SUFFIXES = {".py", ".toml", ".sh"}
TOP_FOLDERS = ("backend", "stats_cli", "tests", "docs", "scripts", "bench", "prompts", "docker", ".ci")
REPO_PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./<>*{}-]*)" % "|".join(re.escape(f) for f in TOP_FOLDERS))
MODULE_NAME = re.compile(r"(?<![\w./-])((?:backend|stats_cli)(?:\.\w+)+)")
PLACEHOLDER = re.compile(r"[<>*{}]")
#: Paths a reader creates, never in the repository, and why they are named.
NOT_IN_REPO = {"docker/.env": "the operator's copy of docker/.env.example (docs/deployment.md)"}


def documents() -> list[Path]:
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def anchors(path: Path) -> set[str]:
    return {anchor(h) for h in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8")))}


def links(text: str) -> list[str]:
    """The link targets of a Markdown text, outside code."""
    return LINK.findall(INLINE_CODE.sub("", FENCE.sub("", text)))


def broken_links(path: Path) -> list[str]:
    """Each relative link of ``path`` whose file or Markdown anchor does not exist."""
    broken = []
    for target in links(path.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target} (no such heading)")
    return broken


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(path):
    assert broken_links(path) == []


def inline_code(text: str) -> list[str]:
    """The inline code spans of a Markdown text, outside fenced blocks."""
    return [span.strip("`") for span in INLINE_CODE.findall(FENCE.sub("", text))]


def top_level_names(module: Path) -> set[str]:
    """Names a module defines or imports at its top level (read, not imported: no side effects)."""
    names: set[str] = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        targets = node.body if isinstance(node, ast.If) else [node]  # ``if TYPE_CHECKING:`` blocks
        for item in targets:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(item.name)
            elif isinstance(item, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in item.names)
            elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                for target in item.targets if isinstance(item, ast.Assign) else [item.target]:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def module_file(parts: list[str], root: Path = REPO) -> Path | None:
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def missing_names(text: str, *, root: Path = REPO) -> list[str]:
    """Each repository path and dotted module name in ``text`` that names nothing in ``root``."""
    missing = []
    for path in REPO_PATH.findall(text):
        path = path.rstrip(".,;:")
        if PLACEHOLDER.search(path) or path.rstrip("/") in NOT_IN_REPO:
            continue
        if not (root / path).exists():
            missing.append(path)
    for dotted in MODULE_NAME.findall(text):
        parts = dotted.rstrip(".").split(".")
        for cut in range(len(parts), 0, -1):  # the longest prefix that is a module
            module = module_file(parts[:cut], root)
            if module is not None:
                break
        rest = parts[cut:]
        if module is None or (rest and rest[0] not in top_level_names(module)
                              and module_file(parts[:cut + 1], root) is None):
            missing.append(dotted)
    return missing


def module_docstrings() -> list[tuple[Path, str]]:
    found = []
    for folder in ("backend", "stats_cli", "tests"):
        for path in sorted((REPO / folder).rglob("*.py")):
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
            if doc:
                found.append((path, doc))
    return found


@pytest.mark.parametrize("path", [*documents(), REPO / "SECURITY.md"], ids=lambda p: str(p.relative_to(REPO)))
def test_named_paths_and_modules_exist(path):
    """Every `backend/...` path and `backend.x.y` name written as inline code names a real one."""
    spans = inline_code(path.read_text(encoding="utf-8"))
    assert [name for span in spans for name in missing_names(span)] == []


def test_module_docstrings_name_real_paths_and_modules():
    docstrings = module_docstrings()
    assert len(docstrings) > 100, "the scan found too few module docstrings"
    missing = [f"{path.relative_to(REPO)}: {name}" for path, doc in docstrings for name in missing_names(doc)]
    assert missing == []


def test_a_missing_path_or_module_is_caught(tmp_path):
    (tmp_path / "backend" / "task").mkdir(parents=True)
    (tmp_path / "backend" / "task" / "spec.py").write_text("from x import y\nclass TaskSpec: ...\nLIMIT = 3\n")
    text = ("backend/task/spec.py backend/task/ backend.task.spec backend.task.spec.TaskSpec backend.task.spec.y "
            "backend/task/<name>.py backend/taskspec.py backend.taskspec backend.task.spec.Gone backend/gone/")
    assert missing_names(text, root=tmp_path) == [
        "backend/taskspec.py", "backend/gone/", "backend.taskspec", "backend.task.spec.Gone"]


def test_cited_sections_exist():
    """The code cites the design by section: each cited doc and heading exists."""
    sources = [p for p in REPO.rglob("*") if p.suffix in CODE_SUFFIXES and p.is_file()
               and not {".git", ".venv", "node_modules"} & set(p.relative_to(REPO).parts)]
    cited = {(doc, frag) for p in sources for doc, frag in CITATION.findall(p.read_text(encoding="utf-8"))}
    assert cited, "the code cites no doc section: the pattern no longer matches"
    missing = [f"{doc}#{frag}" for doc, frag in sorted(cited)
               if not (REPO / doc).exists() or frag not in anchors(REPO / doc)]
    assert missing == []


def test_the_index_lists_every_doc():
    index = REPO / "docs" / "index.md"
    targets = links(index.read_text(encoding="utf-8"))
    listed = {(index.parent / target.partition("#")[0]).resolve() for target in targets}
    missing = [p.name for p in sorted((REPO / "docs").glob("*.md")) if p != index and p.resolve() not in listed]
    assert missing == [], "add each to docs/index.md"


def test_a_broken_link_is_caught(tmp_path):
    (tmp_path / "there.md").write_text("# A heading, with `code`\n", encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text("[ok](there.md) [ok](there.md#a-heading-with-code) [web](https://example.org/x)\n"
                   "[gone](missing.md) [bad](there.md#nope) `[code](not-a-link.md)`\n", encoding="utf-8")
    assert broken_links(doc) == ["missing.md (no such file)", "there.md#nope (no such heading)"]
