"""Opt-in: the real instruct judge proposes entities for a few WNUT-16 tweets, end to end.

Runs only where the real model is installed (``tests/backend/spans/real_judge.py`` says how it is
found; skipped with that reason otherwise: it is not part of the default install). It asserts what
the proposal step must do with a real judge — every reply parses, every span lies on the text's own
characters, a re-run comes from the cache — and that the judge finds some of the true entities
(its measured exact-extent recall on the bench sample is far above zero; see
``bench/bench_span_proposals.py``), never any particular entity.
"""

from __future__ import annotations

import pytest

from backend.scoring.cache import CallCache
from backend.spans.propose import propose_with
from tests.backend.spans.real_judge import real_judge_path
from tests.backend.spans.sample import TYPES, sentences_with_entities

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def real_judge():
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    path, why = real_judge_path()
    if path is None:
        pytest.skip(why)
    from backend.providers.local_gguf import LocalGGUFProvider

    return LocalGGUFProvider(str(path))


def test_the_real_judge_writes_parsable_proposals_on_the_text(real_judge, tmp_path):
    sentences = sentences_with_entities(3)
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    got = [propose_with(real_judge, s.text, types=TYPES, cache=cache, timeout=900) for s in sentences]
    for sentence, answer in zip(sentences, got):
        assert answer.problem is None, answer.reply
        assert not answer.cached and answer.seconds is not None and answer.seconds > 0
        for span in answer.spans:
            assert span.text == sentence.text[span.start:span.end] and span.label in TYPES
        assert len({s.extent for s in answer.spans}) == len(answer.spans)
    found = sum(len({s.extent for s in a.spans} & {t.extent for t in s.spans}) for s, a in zip(sentences, got))
    assert found >= 1, [a.reply for a in got]
    again = [propose_with(real_judge, s.text, types=TYPES, cache=cache, timeout=900) for s in sentences]
    assert all(a.cached for a in again) and [a.spans for a in again] == [a.spans for a in got]
