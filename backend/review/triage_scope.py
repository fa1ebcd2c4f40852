"""The single-label questions the triage reads: the task itself, or each control that has one label per item.

The truth model takes one label per item out of a set of classes, and one distribution over them per member. A
single-choice task gives exactly that, also when it is asked in several option orders: that is one question
asked again, the members already averaged over the orders in the item's row (the per-order verdicts in
``ItemResult.questions`` are not read here: they hold each judge's position bias). A preference is such a
question with two or three classes. A several-control project (:mod:`backend.families.controls`) holds one
verdict per control in ``ItemResult.questions``: every control whose own family has one label per item is
triaged on its own, with its own classes, annotators' answers and experts' gold cut to it. Multi-label sets
and spans are not (their members answer one question per label or per span): :func:`triage_scopes` returns
them with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from backend.scoring.results import ItemResult
from backend.task.spec import TaskSpec

__all__ = ["TriageScope", "not_triaged", "triage_scopes"]


@dataclass(frozen=True)
class TriageScope:
    """One single-label question's spec, rows, annotators' answers and gold (``control`` None: the task's own).

    ``spec`` is the question's own (a control's spec in a several-control project): its family says what a
    disagreement on this question is."""

    control: str | None
    spec: TaskSpec
    results: tuple[ItemResult, ...]
    crowd: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    anchors: Mapping[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> tuple[str, ...]:
        """The question's classes."""
        return tuple(self.spec.labels)


def not_triaged(spec: TaskSpec) -> str | None:
    """Why the items of ``spec`` have no one label to triage (None: they have one)."""
    family = spec.task_family
    if family.single_label:
        return None
    return family.lacks.get("one_label") or (f"a {family.name} item holds more than one label; the truth model "
                                                 "takes one label out of the task's classes per item")


def triage_scopes(spec: TaskSpec, results: Sequence[ItemResult], *, crowd: Mapping[str, Mapping[str, str]],
                  anchors: Mapping[str, str]) -> tuple[tuple[TriageScope, ...], dict[str, str]]:
    """The scopes to triage and, for what is not triaged, why (keyed by control; ``""``: the task itself)."""
    controls = tuple(getattr(spec, "controls", ()) or ())
    if spec.task_family.single_label or not controls:
        why = not_triaged(spec)
        if why:
            return (), {"": why}
        return (TriageScope(None, spec, tuple(results), crowd, anchors),), {}
    scopes, skipped = [], {}
    split = _Splitter(spec)
    for control in controls:
        why = not_triaged(control.spec)
        if why:
            skipped[control.name] = why
            continue
        rows = tuple(row for r in results if (row := _control_row(r, control.name, split)) is not None)
        ids = {str(r.id) for r in rows}
        own_crowd = {item: answers for item, by in crowd.items() if item in ids
                     if (answers := {a: v for a, lab in by.items() if (v := split(lab, control.name)) is not None})}
        own_anchors = {item: v for item, gold in anchors.items() if item in ids
                       and (v := split(gold, control.name)) is not None}
        scopes.append(TriageScope(control.name, control.spec, rows, own_crowd, own_anchors))
    return tuple(scopes), skipped


class _Splitter:
    """A composite value -> one control's value; a value that cannot be read is no answer (never a crash)."""

    def __init__(self, spec: TaskSpec) -> None:
        self._spec, self._seen = spec, {}

    def __call__(self, value: Any, name: str) -> str | None:
        if value is None:
            return None
        if value not in self._seen:
            try:
                self._seen[value] = self._spec.task_family.control_values(self._spec, value)
            except (ValueError, TypeError):
                self._seen[value] = {}
        return self._seen[value].get(name)


def _control_row(result: ItemResult, name: str, split: _Splitter) -> ItemResult | None:
    """The item's verdict on control ``name`` under the item's id; None where the control was not asked."""
    verdict = next((q for q in result.questions if str(q.id) == name), None)
    if verdict is None:
        return None
    original = verdict.original if verdict.original is not None else split(result.original, name)
    return replace(verdict, id=result.id, original=original)
