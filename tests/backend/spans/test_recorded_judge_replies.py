"""The parser and aligner on replies the real judge wrote (Qwen2.5-Coder-1.5B-Instruct, temperature 0).

``data/real_judge_replies.jsonl`` keeps eight of its raw replies to the proposal prompt (versions 1
and 2) on WNUT-16 tweets, recorded by ``bench/bench_span_proposals.py --dump``. Each form below was
seen there: a name in another case ("Paulwalk" for "@paulwalk"), a whole clause proposed, one
string under two types, a re-worded string ("intricate" for "intricately"), "Chicago, IL" for the
tokenised "Chicago , IL", the prompt's own placeholder copied, a leading space inside a string, and
types listed with empty lists. A cut reply (the token limit) keeps its complete pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.spans.align import align
from backend.spans.proposal_parse import parse_proposals
from tests.backend.spans.sample import TYPES

REPLIES = [json.loads(line) for line in
           (Path(__file__).parent / "data" / "real_judge_replies.jsonl").read_text(encoding="utf-8").splitlines()]

# (placed span texts in text order, strings found nowhere), checked by hand against each reply
EXPECTED = [
    (["paulwalk", "Empire State Building"], []),
    (["go ray rice !!!!!!!"], []),  # the 7-word clause is dropped as a phrase
    (["24 y/o kid", "kid", "japan", "flat picking", "championship", "r/l august rush"], ["win"]),
    (["Samuel Savoirfaire Williams", "Potbelly Lincoln Park in Chicago , IL"], []),
    (["sam", "sam 's", "steve", "tanya"], ["Steve and Tanya's"]),
    ([], ["<name>", "<name>"]),
    (["Adam", "TMZ"], []),
    (["Deborah L", "Patricia M"], []),
]


@pytest.mark.parametrize("record, expected", list(zip(REPLIES, EXPECTED)), ids=[f"reply-{i}" for i in range(8)])
def test_recorded_reply_parses_and_lands_on_the_text(record, expected):
    parsed, problem = parse_proposals(record["reply"], types=TYPES)
    assert problem is None
    got = align(record["text"], parsed)
    assert [s.text for s in got.spans] == expected[0] and list(got.unfound) == expected[1]
    assert all(len(p.split()) > 6 for p in got.phrases)
    for span in got.spans:
        assert record["text"][span.start:span.end] == span.text and span.label in TYPES


def test_one_extent_under_two_types_is_proposed_once_with_the_first_type():
    record = REPLIES[2]  # "Japan" listed as person and as geo-loc
    parsed, _ = parse_proposals(record["reply"], types=TYPES)
    assert "Japan" in parsed["person"] and "Japan" in parsed["geo-loc"]
    japan = [s for s in align(record["text"], parsed).spans if s.text == "japan"]
    assert len(japan) == 1 and japan[0].label == "person"


@pytest.mark.parametrize("record", REPLIES[:2] + REPLIES[3:4], ids=["paulwalk", "clause", "chicago"])
def test_a_reply_cut_by_the_token_limit_keeps_its_complete_pairs(record):
    full, _ = parse_proposals(record["reply"], types=TYPES)
    body = record["reply"]
    cut = body[:body.index("]", body.index("[")) + 1] + ',\n  "geo-loc": ["Unfinish'
    first_type = next(iter(full))
    parsed, problem = parse_proposals(cut, types=TYPES)
    assert problem is None and parsed == {first_type: full[first_type]}
