"""Ledger rows assembled by the families' own code from planted per-question answers (no judge, no engine).

A test plants each member's distribution per question (every option order of a single-choice task, every
control of a several-control task); each question's verdict is decided by the ensemble's own rule, then the
item's row is assembled by the task family exactly as the engine does (:meth:`TaskFamily.assemble`), so the
rows have the shape a default project's ledger holds (per-order verdicts kept in ``ItemResult.questions``),
and pass through their JSON form as the ledger stores and returns them.
"""

from __future__ import annotations

import json
from typing import Callable, Mapping

from backend.scoring.ensemble import VerdictRule, model_of, verdict
from backend.scoring.results import ItemResult, MemberResult
from backend.task.dataset import Item
from backend.task.family import Question
from backend.task.spec import TaskSpec

__all__ = ["Plant", "assembled_row"]

#: (question, question's original label) -> member id -> that member's distribution over the question's labels.
Plant = Callable[[Question, "str | None"], Mapping[str, Mapping[str, float]]]


def _answer(item_id: str, question: Question, original: str | None, members: Mapping[str, Mapping[str, float]],
            rule: VerdictRule) -> ItemResult:
    ids = list(members)
    decision = verdict([members[m] for m in ids], [model_of(m) for m in ids], original, rule)
    assert decision is not None
    return ItemResult(id=item_id, original=original, prediction=decision.prediction, confidence=decision.confidence,
                      probs=decision.probs, flagged=decision.flagged, insufficient=decision.insufficient,
                      members=tuple(MemberResult(m, probs=dict(members[m])) for m in ids))


def assembled_row(spec: TaskSpec, item_id: str, original: str, plant: Plant, *,
                  threshold: float | None = None) -> ItemResult:
    """The item's ledger row: ``plant`` answers every question of ``spec``, the family assembles them."""
    family = spec.task_family
    item = Item(item_id, original, {var: f"{var} of {item_id}" for var in spec.fields})
    answers, rules = [], []
    for question in family.questions(spec):
        asked = family.question_original(spec, question, original)
        rule = VerdictRule(question.spec, threshold=threshold)
        answers.append(_answer(item_id, question, asked, plant(question, asked), rule))
        rules.append(rule)
    row = family.assemble(spec, item, answers, rules=rules)
    return ItemResult.from_json(json.loads(json.dumps(row.to_json())))
