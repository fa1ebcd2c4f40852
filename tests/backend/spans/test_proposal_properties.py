"""Property tests of the proposal parser and aligner: whatever the text and the answer's form.

Random entity lists written the ways a model writes them (fenced or bare JSON, indented or not,
single quotes, text around) parse back to the same lists; strings taken from a random text are
placed back at offsets whose characters are the text's own, in any case.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from backend.spans.align import align, occurrences
from backend.spans.proposal_parse import parse_proposals

TYPES = ("person", "geo-loc", "company")
_name = st.text(st.characters(categories=("L", "N"), include_characters=" .&-'"), min_size=1, max_size=20).map(
    str.strip).filter(bool)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéÉüÜøØ"  # case maps that keep the length
_answers = st.dictionaries(st.sampled_from(TYPES), st.lists(_name, max_size=4, unique=True), max_size=3)


def _written(answer: dict, how: str) -> str:
    if how == "fenced":
        return f"```json\n{json.dumps(answer, indent=2, ensure_ascii=False)}\n```"
    if how == "bare-with-text":
        return f"Here are the entities: {json.dumps(answer, ensure_ascii=False)}\nI hope this helps {{:)}}"
    if how == "python":
        return repr(answer)
    return f" ```\n{json.dumps(answer, ensure_ascii=False)}\n```\nExplanation: the list [above] is complete."


@settings(max_examples=150, deadline=None)
@given(answer=_answers, how=st.sampled_from(("fenced", "bare-with-text", "python", "plain-fence")))
def test_any_written_answer_parses_back(answer, how):
    parsed, problem = parse_proposals(_written(answer, how), types=TYPES)
    if not answer and how == "bare-with-text":  # "{}" amid prose is braces, not an empty answer
        assert problem is not None and parsed == {}
        return
    assert problem is None
    assert {k: v for k, v in parsed.items() if v} == {k: v for k, v in answer.items() if v}


@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.text(_LETTERS, min_size=1, max_size=8), min_size=1, max_size=12),
       data=st.data())
def test_strings_of_the_text_are_placed_on_its_own_characters(words, data):
    text = " ".join(words)
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i, min(i + 2, len(words) - 1)))
    needle = " ".join(words[i:j + 1])
    where = (sum(len(w) + 1 for w in words[:i]), sum(len(w) + 1 for w in words[:j + 1]) - 1)
    assert where in occurrences(text, needle)
    for written in (needle, needle.swapcase(), needle.replace(" ", "  ")):
        got = align(text, {"person": [written]})
        assert not got.unfound
        if written == needle or not occurrences(text, written):  # else found as written, elsewhere
            assert where in {s.extent for s in got.spans}
        for span in got.spans:
            assert span.text == text[span.start:span.end]
            assert span.text.casefold().split() == needle.casefold().split()
        assert len({s.extent for s in got.spans}) == len(got.spans)


@given(text=st.text(max_size=60))
def test_any_reply_is_parsed_without_raising(text):
    parsed, problem = parse_proposals(text, types=TYPES)
    assert set(parsed) <= set(TYPES) and (problem is None or isinstance(problem, str))
