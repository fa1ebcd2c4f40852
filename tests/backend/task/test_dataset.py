"""Reading items: JSONL and CSV, every bad record reported with its line, the rest read on."""

from __future__ import annotations

import json

import pytest

from backend.task.dataset import Item, ItemError, item_from_record, read_items
from backend.task.spec import load_spec

FC = load_spec("factual-consistency")
REL = load_spec("relevance")


def good(i, label=1):
    return {"id": f"x{i}", "grounding": f"g{i}", "generated_text": f"t{i}", "label": label}


def write_jsonl(path, lines):
    path.write_bytes(b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n" for l in lines))
    return path


def test_jsonl_errors_carry_line_numbers_and_never_stop_the_rest(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [
        json.dumps(good(1)),
        "{not json",
        json.dumps({"id": "x3", "grounding": "g"}),            # missing generated_text
        json.dumps(good(4, label=7)),                          # label outside the set
        "",                                                    # blank lines are skipped
        b'{"id": "x6", "grounding": "\xff\xfe", "generated_text": "t", "label": 0}',
        json.dumps([1, 2]),
        json.dumps(good(1, label=0)),                          # duplicate id
        json.dumps({**good(9), "generated_text": {"a": 1}}),   # not text
        json.dumps(good(10, label="1.0")),
    ])
    out = list(read_items(path, FC))
    kinds = [(type(o).__name__, o.line, getattr(o, "reason", None)) for o in out]
    assert kinds == [
        ("Item", 1, None),
        ("ItemError", 2, "invalid_json"),
        ("ItemError", 3, "missing_field"),
        ("ItemError", 4, "bad_label"),
        ("ItemError", 6, "unreadable"),
        ("ItemError", 7, "not_an_object"),
        ("ItemError", 8, "duplicate_id"),
        ("ItemError", 9, "bad_value"),
        ("Item", 10, None),
    ]
    assert out[2].id == "x3" and "generated_text" in out[2].detail
    assert out[3].id == "x4" and "7" in out[3].detail
    assert out[-1].original == "1"
    assert out[0] == Item("x1", "1", {"grounding": "g1", "generated_text": "t1"}, 1, good(1))


def test_csv_rows_multiline_cells_and_errors(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(
        "id,query,passage,label\n"
        "r1,q one,\"a passage\nover two lines\",3\n"
        "r2,q two,short,9\n"
        "r3,q three\n"
        "r4,q,p,1,extra\n"
        "\n"
        "r5,q five,p five,\n",
        encoding="utf-8",
    )
    out = list(read_items(path, REL))
    assert isinstance(out[0], Item) and out[0].fields["passage"] == "a passage\nover two lines" and out[0].line == 2
    assert (out[1].line, out[1].reason) == (4, "bad_label")
    assert (out[2].line, out[2].reason) == (5, "missing_field")
    assert (out[3].line, out[3].reason) == (6, "csv_error")
    assert isinstance(out[4], Item) and out[4].line == 8 and out[4].original is None  # unlabelled


def test_csv_undecodable_bytes_are_one_bad_row(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"id,query,passage,label\nr1,q,p\xff,1\nr2,q,p,2\n")
    out = list(read_items(path, REL))
    assert isinstance(out[0], ItemError) and (out[0].line, out[0].reason) == (2, "unreadable")
    assert isinstance(out[1], Item) and out[1].original == "2"


def test_record_without_id_uses_its_line_and_numbers_become_text(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [json.dumps({"query": 42, "passage": "p", "label": 0})])
    (item,) = read_items(path, REL)
    assert item.id == "line:1" and item.fields["query"] == "42"


def test_item_from_record_raises_value_error_with_reason():
    with pytest.raises(ValueError, match="missing_field"):
        item_from_record({"id": 1, "grounding": "g", "label": 1}, FC)
    with pytest.raises(ValueError, match="missing_id"):
        item_from_record({"grounding": "g", "generated_text": "t"}, FC)  # no line number to fall back on
    with pytest.raises(ValueError, match="bad_label"):
        item_from_record({**good(1), "label": True}, FC)
    item = item_from_record({**good(1), "id": 7, "label": None}, FC, line=3)
    assert item.id == "7" and item.original is None and item.line == 3


def test_item_error_message_names_line_and_id():
    err = ItemError(4, "x4", "bad_label", "label 7 is not in the label set")
    assert err.message() == "line 4 (id x4): bad_label: label 7 is not in the label set"


def test_json_the_parser_refuses_beyond_syntax_is_one_bad_line(tmp_path):
    # json.loads raises plain ValueError (not JSONDecodeError) for an integer over 4300 digits and
    # RecursionError for very deep nesting: each must be one counted error, not the end of the run.
    path = write_jsonl(tmp_path / "d.jsonl", [
        '{"id": "x1", "grounding": "g", "generated_text": "t", "label": ' + "1" * 5000 + "}",
        "[" * 100_000 + "]" * 100_000,
        json.dumps(good(3)),
    ])
    out = list(read_items(path, FC))
    assert [(type(o).__name__, o.line, getattr(o, "reason", None)) for o in out] == [
        ("ItemError", 1, "invalid_json"), ("ItemError", 2, "invalid_json"), ("Item", 3, None)]
