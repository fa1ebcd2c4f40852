"""Judges of known quality: drawn answers turned into verdicts by the product's own rule and assembly.

No LLM and no prompt: each member (a model × a prompt) answers each question of an item with a drawn
distribution, and the verdict is what the engine makes of such answers — :func:`backend.scoring.ensemble.verdict`
per question (the engine's rule, threshold, delta and quorum), then the family's own
:meth:`~backend.task.family.TaskFamily.assemble` (option orders merged, one verdict per control, the
conditional control not asked where the original does not show it), exactly as
:class:`backend.scoring.question_engine.QuestionEngine` does after its calls.

A model is right with probability ``accuracy`` (its top label the question's true answer, else another label
drawn uniformly); its prompts follow the model's answer with probability ``prompt_agreement`` and draw their
own otherwise (so one model's prompts are correlated, as real ones are). The answer's probability is drawn
uniformly in ``confidence``; the rest of the mass is spread evenly. A question asked again in another option
order repeats the member's answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from backend.scoring.ensemble import VerdictRule, model_of, verdict
from backend.scoring.question_engine import not_shown
from backend.scoring.results import ItemResult, MemberResult
from backend.task.dataset import Item
from backend.task.spec import TaskSpec

from .projects import PlantedItem
from .spans import judge_spans

__all__ = ["Judges", "judge"]


@dataclass(frozen=True)
class Judges:
    """The ensemble's quality: models, prompts per model, each model's accuracy."""

    models: tuple[str, ...] = ("local:m1", "local:m2")
    prompts: tuple[str, ...] = ("p1", "p2")
    accuracy: tuple[float, ...] = (0.8, 0.7)
    prompt_agreement: float = 0.8
    confidence: tuple[float, float] = (0.55, 0.97)

    def __post_init__(self) -> None:
        if len(self.accuracy) != len(self.models):
            raise ValueError("one accuracy per model")

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(f"{m}/{p}" for m in self.models for p in self.prompts)


def _pick(labels: Sequence[str], truth: str | None, accuracy: float, rng: random.Random) -> str:
    if truth in labels and rng.random() < accuracy:
        return truth  # type: ignore[return-value]
    others = [lab for lab in labels if lab != truth]
    return rng.choice(others or list(labels))


def _distribution(labels: Sequence[str], top: str, rng: random.Random, bounds: tuple[float, float]) -> dict[str, float]:
    sharp = rng.uniform(*bounds)
    rest = (1.0 - sharp) / (len(labels) - 1)
    return {lab: sharp if lab == top else rest for lab in labels}


def _answers(judges: Judges, labels: Sequence[str], truth: str | None, rng: random.Random) -> list[dict[str, float]]:
    """One distribution per member, in member order."""
    out = []
    for model, accuracy in zip(judges.models, judges.accuracy):
        shared = _pick(labels, truth, accuracy, rng)
        for _ in judges.prompts:
            top = shared if rng.random() < judges.prompt_agreement else _pick(labels, truth, accuracy, rng)
            out.append(_distribution(labels, top, rng, judges.confidence))
    return out


def judge(spec: TaskSpec, planted: Sequence[PlantedItem], judges: Judges, rng: random.Random) -> list[ItemResult]:
    """The ensemble's verdict on every planted item, as the engine would store it."""
    if spec.family == "spans":  # questions per item: the span family's own (bench/simulate/spans.py)
        return judge_spans(spec, [(p.id, p.fields["text"], p.truth, p.original) for p in planted], judges.members,
                           lambda options, truth, r: _answers(judges, options, truth, r), rng)
    family = spec.task_family
    questions = family.questions(spec)
    rules = [VerdictRule(q.spec) for q in questions]
    members = judges.members
    models = [model_of(m) for m in members]
    out = []
    for p in planted:
        item = Item(p.id, p.original, dict(p.fields))
        answers, last = [], None
        for question, rule in zip(questions, rules):
            original = family.question_original(spec, question, p.original)
            if question.conditional and original is None:
                answers.append(not_shown(item))
                continue
            truth = family.question_original(spec, question, p.truth)
            labels = list(question.spec.labels)
            if not (question.reorders and last is not None):
                last = _answers(judges, labels, truth, rng)
            results = tuple(MemberResult(m, probs=dict(d), method="logprobs") for m, d in zip(members, last))
            decision = verdict([r.probs for r in results], models, original, rule)
            answers.append(ItemResult(id=p.id, original=original, prediction=decision.prediction,
                                      confidence=decision.confidence, probs=decision.probs, flagged=decision.flagged,
                                      insufficient=decision.insufficient, members=results))
        if len(questions) == 1 and questions[0].spec is spec:
            out.append(answers[0])
        else:
            out.append(family.assemble(spec, item, answers, rules=rules))
    return out
