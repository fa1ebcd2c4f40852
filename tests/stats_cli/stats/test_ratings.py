"""Reading long and wide ratings files: label normalisation, missing ratings, line-numbered errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from stats_cli.stats.labels import normalize_label, sort_labels
from stats_cli.sources.ratings_file import read_ratings
from stats_cli.sources.rows import read_rows


def test_labels_normalise_and_sort_naturally() -> None:
    assert [normalize_label(x) for x in (1, 1.0, "1.0", " 1 ", True, "", None, float("nan"), "NA")] == [
        "1", "1", "1", "1", "1", None, None, None, None]
    assert sort_labels(["10", "9", "b", "A", "1.5"]) == ["1.5", "9", "10", "A", "b"]


def test_long_csv_with_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "item,annotator,label\n"
        "1,A,yes\n1,B,yes\n"
        "2,A,no\n"
        "2,A,yes\n"          # line 5: duplicate rating, first kept
        "3,A,no,extra\n"     # line 6: wrong field count
        ",B,no\n"            # line 7: no item
        "2,B,\n"             # blank label = missing rating, not an error
        "3,B,no\n"
    )
    table = read_ratings(path)
    assert [(e.line, e.message.split(" ")[0]) for e in table.errors] == [(5, "duplicate"), (6, "expected"), (7, "missing")]
    assert table.items == ["1", "2", "3"] and table.annotators == ["A", "B"]
    assert table.categories == ["no", "yes"]
    assert table.codes.tolist() == [[1, 1], [0, -1], [-1, 0]]
    assert table.counts().tolist() == [[0, 2], [1, 0], [1, 0]]


def test_wide_tsv_and_jsonl(tmp_path: Path) -> None:
    wide = tmp_path / "w.tsv"
    wide.write_text("item\tr1\tr2\nx\t9\t10\ny\t\t9\n")
    table = read_ratings(wide, wide=True)
    assert table.categories == ["9", "10"] and table.codes.tolist() == [[0, 1], [-1, 0]]
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text('{"item": 1, "annotator": "a", "label": 2}\n[1, 2]\n\n{"item": 1, "annotator": "b", "label": "2.0"}\n{oops\n')
    table = read_ratings(jsonl)
    assert [e.line for e in table.errors] == [2, 5]
    assert table.counts().tolist() == [[2]]


def test_numeric_only_reports_text_labels(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("item,a,b\n1,3,x\n2,4,4\n")
    table = read_ratings(path, wide=True, numeric_only=True)
    assert [e.line for e in table.errors] == [2]
    assert np.array_equal(table.codes, [[0, -1], [1, 1]])


def test_rows_keep_first_line_of_multiline_csv_record(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text('a,b\n"two\nlines",1\nx,2\n')
    parsed = read_rows(path)
    assert [r.line for r in parsed.rows] == [2, 4]


def test_unterminated_quote_is_reported_not_swallowed(tmp_path: Path) -> None:
    # a lenient csv reader reads everything after an unclosed quote as one field: the rows it
    # swallowed must not turn into a bogus label silently
    path = tmp_path / "q.csv"
    path.write_text('item,annotator,label\n1,a,1\n1,b,"0\n2,a,1\n2,b,1\n')
    parsed = read_rows(path)
    assert [r.line for r in parsed.rows] == [2]
    assert [e.line for e in parsed.errors] == [3] and "unterminated quote" in parsed.errors[0].message
    closed = tmp_path / "ok.csv"  # a quoted multi-line field at the end of a file is fine
    closed.write_text('a,b\nx,"two\nlines"\n')
    parsed = read_rows(closed)
    assert parsed.errors == [] and parsed.rows[0].data["b"] == "two\nlines"
