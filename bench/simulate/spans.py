"""Planted span items (NER) and the ensemble's verdict on them, through the span family's own questions and assembly.

A text is ten words; each word starts a true entity with probability ``ENTITY`` (one or two words, a type drawn
evenly). The original is one annotator's spans: each true span kept with probability ``accuracy``, else a slip
of one kind — another type, dropped (a missed entity), a boundary one word longer, or kept and joined by a
span that is no entity. The judges propose what the annotator missed and the other extent of a wrong
boundary (each with probability ``PROPOSE``) and a stray extent now and then; the item's questions are the
product's (:func:`backend.spans.questions.build_questions`), each answered by the members of
:mod:`.judges` against the answer the true spans give (:func:`backend.api.expert_answer`), judged by
:func:`backend.scoring.ensemble.verdict` under the question's spec, and assembled into the item's prediction
as :class:`backend.spans.engine.SpanEngine` stores it (no LLM, no cache).
"""

from __future__ import annotations

import random
from typing import Sequence

from backend.api import expert_answer
from backend.scoring.ensemble import VerdictRule, model_of, verdict
from backend.scoring.results import ItemResult, MemberResult
from backend.spans.assemble import Verdict, predicted_spans
from backend.spans.config import span_control_of
from backend.spans.engine import SpanEngine
from backend.spans.model import Span
from backend.spans.questions import build_questions
from backend.spans.score_spans import SpanVerdict
from backend.spans.specs import boundary_spec, type_spec
from backend.spans.value import decode_spans, encode_spans
from backend.task.dataset import Item
from backend.task.spec import TaskSpec

__all__ = ["judge_spans", "span_text", "span_truth", "span_slip"]

WORDS = 10
ENTITY = 0.25
PROPOSE = 0.8
STRAY = 0.1


def span_text(k: int) -> tuple[str, list[tuple[int, int]]]:
    """Item ``k``'s text and its words' offsets."""
    words = [f"w{k}x{j}" for j in range(WORDS)]
    offsets, at = [], 0
    for w in words:
        offsets.append((at, at + len(w)))
        at += len(w) + 1
    return " ".join(words), offsets


def _span(text: str, offsets: list[tuple[int, int]], first: int, last: int, label: str) -> Span:
    start, end = offsets[first][0], offsets[last][1]
    return Span(start, end, label, text[start:end])


def span_truth(spec: TaskSpec, text: str, offsets: list[tuple[int, int]], rng: random.Random) -> str:
    """The true spans: entities of one or two words, never touching."""
    types = list(spec.labels[:-1])
    spans, j = [], 0
    while j < len(offsets):
        if rng.random() < ENTITY:
            last = min(j + (rng.random() < 0.3), len(offsets) - 1)
            spans.append(_span(text, offsets, j, last, rng.choice(types)))
            j = last + 2
        else:
            j += 1
    return encode_spans(spans)


def span_slip(spec: TaskSpec, truth: str, text: str, offsets: list[tuple[int, int]], accuracy: float,
              rng: random.Random) -> str:
    """One annotator's spans (see the module docstring)."""
    types = list(spec.labels[:-1])
    starts = {o[0]: k for k, o in enumerate(offsets)}
    ends = {o[1]: k for k, o in enumerate(offsets)}
    true = list(decode_spans(truth))
    used = {k for s in true for k in range(starts[s.start], ends[s.end] + 1)}
    out = []
    for s in true:
        if rng.random() < accuracy:
            out.append(s)
            continue
        kind = rng.choice(("type", "missed", "boundary", "spurious"))
        last = ends[s.end]
        if kind == "type":
            out.append(Span(s.start, s.end, rng.choice([t for t in types if t != s.label]), s.text))
        elif kind == "boundary" and last + 1 < len(offsets) and last + 1 not in used:
            out.append(_span(text, offsets, starts[s.start], last + 1, s.label))
        elif kind == "spurious":
            out.append(s)
            free = [k for k in range(len(offsets)) if k not in used and k - 1 not in used and k + 1 not in used]
            if free:
                out.append(_span(text, offsets, (w := rng.choice(free)), w, rng.choice(types)))
        # "missed" (or a boundary with no room): the span is left out
    return encode_spans(out)


def _proposals(truth: Sequence[Span], original: Sequence[Span], text: str, offsets: list[tuple[int, int]],
               types: Sequence[str], rng: random.Random) -> list[Span]:
    """What the judges propose: the true extents the original lacks (most of them) and a stray one."""
    extents = {s.extent for s in original}
    out = [s for s in truth if s.extent not in extents and rng.random() < PROPOSE]
    if rng.random() < STRAY:
        w = rng.randrange(len(offsets))
        out.append(_span(text, offsets, w, w, rng.choice(list(types))))
    return out


def judge_spans(spec: TaskSpec, items: Sequence[tuple[str, str, str, str]], members: Sequence[str],
                answers, rng: random.Random) -> list[ItemResult]:
    """``items``: (id, text, truth, original); ``answers(options, truth, rng)``: one distribution per member."""
    control = span_control_of(spec)
    specs = {"type": type_spec(control, name=spec.name), "boundary": boundary_spec(name=spec.name)}
    specs["missed"] = specs["type"]
    rules = {kind: VerdictRule(s) for kind, s in specs.items()}
    types = list(control.labels)
    models = [model_of(m) for m in members]
    out = []
    for item_id, text, truth, original in items:
        true, said = decode_spans(truth), decode_spans(original)
        offsets = [(int(a), int(b)) for a, b in _word_offsets(text)]
        questions = build_questions(said, _proposals(true, said, text, offsets, types, rng))
        results = {}
        for q in questions:
            options = list(q.options(types))
            dists = answers(options, expert_answer(q, true), rng)
            decision = verdict(dists, models, q.original, rules[q.kind])
            results[q.qid] = ItemResult(
                id=q.qid, original=q.original, prediction=decision.prediction, confidence=decision.confidence,
                probs=decision.probs, flagged=decision.flagged, insufficient=decision.insufficient,
                members=tuple(MemberResult(m, probs=dict(d), method="logprobs") for m, d in zip(members, dists)))
        answered = {qid: Verdict(r.prediction, r.confidence, bool(r.flagged)) for qid, r in results.items()
                    if r.prediction is not None}
        staged = SpanVerdict(item_id, questions, results, predicted_spans(questions, answered))
        out.append(SpanEngine._result(None, Item(item_id, original, {"text": text}), staged, []))  # type: ignore[arg-type]
    return out


def _word_offsets(text: str) -> list[tuple[int, int]]:
    out, at = [], 0
    for w in text.split(" "):
        out.append((at, at + len(w)))
        at += len(w) + 1
    return out
