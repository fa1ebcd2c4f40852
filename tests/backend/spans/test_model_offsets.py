"""Spans and offsets: code points inside, UTF-16 recognised and converted once at the boundary."""

import pytest

from backend.spans.lsresult import read_spans, span_region
from backend.spans.model import Span, span_in
from backend.spans.offsets import codepoint_to_utf16, resolve_offsets, utf16_length, utf16_to_codepoint

TEXT = "Meet 😀 Anna in 東京 today"


def test_span_validates_its_interval_and_text():
    with pytest.raises(ValueError):
        Span(3, 3, "PER")
    with pytest.raises(ValueError):
        Span(0, 2, "")
    with pytest.raises(ValueError):
        Span(0, 4, "PER", "abc")
    with pytest.raises(ValueError):
        span_in("abc", 1, 9, "PER")
    assert span_in(TEXT, 7, 11, "PER").text == "Anna"


def test_overlap_is_half_open():
    a = Span(0, 4, "X")
    assert a.overlaps(Span(3, 5, "Y"))
    assert not a.overlaps(Span(4, 6, "Y"))


def test_utf16_conversion_round_trips_and_refuses_half_surrogates():
    assert utf16_length(TEXT) == len(TEXT) + 1  # one emoji outside the BMP
    assert codepoint_to_utf16(TEXT, 7) == 8
    assert utf16_to_codepoint(TEXT, 8) == 7
    assert utf16_to_codepoint(TEXT, 6) is None  # inside the emoji's surrogate pair
    for i in range(len(TEXT) + 1):
        assert utf16_to_codepoint(TEXT, codepoint_to_utf16(TEXT, i)) == i


def test_resolve_prefers_code_points_and_recognises_utf16():
    assert resolve_offsets(TEXT, 7, 11, "Anna") == (7, 11, "codepoints")
    assert resolve_offsets(TEXT, 8, 12, "Anna") == (7, 11, "utf16")
    assert resolve_offsets(TEXT, 1, 3, "Anna") is None
    assert resolve_offsets(TEXT, 15, 17, None) == (15, 17, "codepoints")


def _region(start, end, text, labels=("PER",), name="label"):
    return {"from_name": name, "to_name": "text", "type": "labels",
            "value": {"start": start, "end": end, "text": text, "labels": list(labels)}}


def test_read_spans_reads_converts_and_reports_bad_regions():
    result = [
        _region(7, 11, "Anna"),
        _region(16, 18, "東京", ("LOC",)),  # UTF-16 offsets of 東京: converted
        _region(0, 2, "zz"),  # selects "Me": refused
        {"from_name": "label", "type": "labels", "value": "oops"},
        _region(0, 4, "Meet", ("DATE",)),  # not a project label
        _region(0, 4, "Meet", (), name="other"),  # another control: ignored
        {"from_name": "label", "type": "labels", "value": {"start": "x", "end": 2}},
    ]
    read = read_spans(result, TEXT, control="label", labels=("PER", "LOC"))
    assert read.spans == (Span(7, 11, "PER", "Anna"), Span(15, 17, "LOC", "東京"))
    assert read.converted_utf16 == 1
    assert len(read.problems) == 4


def test_combining_marks_and_crlf_count_as_python_counts_them():
    text = "Zoe\u0308 met\r\nBob"
    assert read_spans([_region(0, 4, "Zoe\u0308"), _region(10, 13, "Bob")], text, control="label").spans == (
        Span(0, 4, "PER", "Zoe\u0308"), Span(10, 13, "PER", "Bob"))


def test_region_round_trip():
    span = Span(7, 11, "PER", "Anna")
    region = span_region(span, control="label", to_name="text", region_id="r1", score=0.8)
    assert region["score"] == 0.8 and region["id"] == "r1"
    assert read_spans([region], TEXT, control="label").spans == (span,)
