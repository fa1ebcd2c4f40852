"""The review's opt-in "More than one answer may be right" choice (``review push --ambiguous-choice``).

Some items have more than one defensible label under the guidelines; forcing an expert to pick one turns
that into a coin flip, a split and a round 2 that cannot settle it. With the choice offered, an expert can
say so; the answer is stored as :data:`backend.review.outcome.AMBIGUOUS_ANSWER` and the outcome rule makes
the item ``EXPERTS_AMBIGUOUS`` when the experts agree on it (:func:`backend.review.outcome.decide_outcome`).

It is on EVERY item of the review, never only on the items the triage calls ambiguous: a choice shown
on some items only would tell the expert which items the tool doubts, and the review is blind. It is
offered on one single-choice ``<Choices>`` control of a binary or nominal task only: a multi-label,
graded or numeric answer, spans or several controls have no one place for it (and an ordinal grade's
"between two grades" is a grade, not this).
"""

from __future__ import annotations

from typing import Any, Sequence

from backend.families.single import choice_from_result
from backend.labelstudio.expertview import ExtraChoice
from backend.review.outcome import AMBIGUOUS_ANSWER
from backend.task.spec import TaskSpec

__all__ = ["AMBIGUOUS_CHOICE", "AMBIGUOUS_TEXT", "check_offerable", "extra_choices",
           "read_answer", "shown_answer"]

AMBIGUOUS_TEXT = "More than one answer may be right"
AMBIGUOUS_HINT = "For items where the guidelines allow more than one defensible label."
AMBIGUOUS_CHOICE = ExtraChoice(AMBIGUOUS_ANSWER, AMBIGUOUS_TEXT, AMBIGUOUS_HINT)


def check_offerable(spec: TaskSpec, *, single_choices: bool) -> None:
    """ValueError (one line) unless the task is one single-choice ``<Choices>`` control, binary or nominal."""
    family = spec.task_family.name
    if not single_choices or not spec.task_family.ambiguous_choice:
        kind = family if single_choices else f"{family}, not one single-choice <Choices> control"
        raise ValueError(f"--ambiguous-choice needs one single-choice <Choices> control of a binary or nominal "
                         f"task; this project is {kind}")
    if AMBIGUOUS_ANSWER in spec.labels:
        raise ValueError(f"--ambiguous-choice: the project has a label {AMBIGUOUS_ANSWER!r}, reserved for the choice")


def extra_choices(offered: bool) -> tuple[ExtraChoice, ...]:
    """The extra choices of a review config: the ambiguous one when ``offered``, else none."""
    return (AMBIGUOUS_CHOICE,) if offered else ()


def read_answer(spec: TaskSpec, result: Sequence[Any]) -> str | None:
    """An expert's answer from an annotation result: :data:`AMBIGUOUS_ANSWER` when they picked that choice
    (the family would drop it as an unknown label), else the family's reading; an answer that is none of the
    labels is no answer (the review view allows only its labels; the item stays unanswered, never a crash)."""
    control = spec.binding.from_name if spec.binding is not None else ""
    if control and spec.task_family.ambiguous_choice \
            and choice_from_result(result, control=control) == AMBIGUOUS_ANSWER:
        return AMBIGUOUS_ANSWER
    try:
        return spec.task_family.read_result(spec, result)
    except ValueError:
        return None


def shown_answer(label: str) -> str | None:
    """What the expert saw for a stored answer when it is the ambiguous one, else None."""
    return AMBIGUOUS_TEXT if label == AMBIGUOUS_ANSWER else None
