"""Every relative link of README.md, CONTRIBUTING.md and docs/*.md resolves, every citation of a doc section in
the code (``docs/architecture.md#the-answer-cue``) too, and docs/index.md lists every doc.

A link's file must exist; a link into a Markdown file with an anchor must name one of its headings (GitHub's
anchor of a heading: lower case, punctuation dropped, spaces to hyphens). Links inside code blocks and
inline code are text, not links.
"""

from __future__ import annotations

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
