"""CoNLL in and out, JSONL export, the span config and its blind review config."""

import json

import pytest

from backend.spans.config import has_span_labels, review_span_config, span_control
from backend.spans.conll import iob_tags, read_conll, sentence_from_tokens
from backend.spans.export import write_span_files
from backend.spans.model import Span

NER = """<View>
  <Header value="Mark every entity"/>
  <Labels name="label" toName="text">
    <Label value="Person" alias="PER" background="red" hint="a named person"/>
    <Label value="LOC" selected="true"/>
  </Labels>
  <Text name="text" value="$text"/>
</View>"""


def test_sentence_from_iob_tokens():
    s = sentence_from_tokens([("Anna", "B-PER"), ("Lee", "I-PER"), ("in", "O"), ("Paris", "I-LOC")])
    assert s.text == "Anna Lee in Paris"
    assert s.spans == (Span(0, 8, "PER", "Anna Lee"), Span(12, 17, "LOC", "Paris"))
    assert s.loose_i_tags == 1


def test_read_conll_file(tmp_path):
    path = tmp_path / "x.conll"
    path.write_text("Anna\tB-person\nsings\tO\n\n\nRome\tB-geo-loc\n", encoding="utf-8")
    sentences = list(read_conll(path))
    assert [s.text for s in sentences] == ["Anna sings", "Rome"]
    assert sentences[1].spans == (Span(0, 4, "geo-loc", "Rome"),) and sentences[1].line == 5
    assert len(list(read_conll(path, limit=1))) == 1


def test_iob_round_trip_and_widening():
    text = "Anna Lee visited 東京 and New York."
    spans = [Span(0, 8, "PER", "Anna Lee"), Span(17, 19, "LOC", "東京"), Span(24, 32, "LOC", "New York")]
    tagged, widened = iob_tags(text, spans)
    assert widened == 0
    assert tagged == [("Anna", "B-PER"), ("Lee", "I-PER"), ("visited", "O"), ("東", "B-LOC"), ("京", "I-LOC"),
                      ("and", "O"), ("New", "B-LOC"), ("York", "I-LOC"), (".", "O")]
    _, widened = iob_tags(text, [Span(1, 8, "PER", "nna Lee")])
    assert widened == 1


def test_write_files(tmp_path):
    items = [("t1", "Anna 😀 sings", [Span(0, 4, "PER", "Anna")])]
    write_span_files(items, jsonl=tmp_path / "g.jsonl", conll=tmp_path / "g.conll")
    row = json.loads((tmp_path / "g.jsonl").read_text("utf-8"))
    assert row["spans"][0] == {"start": 0, "end": 4, "label": "PER", "text": "Anna"} and row["offsets"] == "codepoints"
    assert (tmp_path / "g.conll").read_text("utf-8").startswith("Anna\tB-PER\n😀\tO\nsings\tO")


def test_span_control_and_blind_config():
    assert has_span_labels(NER) and not has_span_labels("<View><Choices name='c' toName='t'/></View>")
    ctrl = span_control(NER)
    assert (ctrl.name, ctrl.to_name, ctrl.field) == ("label", "text", "text")
    assert ctrl.labels == ("PER", "LOC") and ctrl.shown == ("Person", "LOC") and ctrl.hints == ("a named person", "")
    blind = review_span_config(NER)
    assert "hint" not in blind and "selected" not in blind and "Header" not in blind
    assert span_control(blind).labels == ("PER", "LOC")
    with pytest.raises(ValueError, match="exactly one <Labels>"):
        span_control("<View><Text name='t' value='$t'/></View>")
    with pytest.raises(ValueError, match="not an entity"):
        span_control('<View><Labels name="l" toName="t"><Label value="not an entity"/></Labels>'
                     '<Text name="t" value="$t"/></View>')


def test_conll_from_gold_rows_skips_rows_without_label_or_text(tmp_path):
    from backend.spans.export import conll_from_rows
    from backend.spans.value import encode_spans

    rows = [("1", encode_spans([Span(0, 4, "PER", "Anna")])), ("2", None), ("3", encode_spans([]))]
    widened = conll_from_rows(rows, {"1": "Anna sings", "2": "x", "3": None}, tmp_path / "g.conll")
    assert widened == 0
    assert (tmp_path / "g.conll").read_text("utf-8") == "Anna\tB-PER\nsings\tO\n"
