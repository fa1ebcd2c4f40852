"""What a round-2 (reconciliation) task shows of round 1: each expert's answer, per control when several.

A one-``<Choices>`` item shows one line per expert ("Expert A: Positive"), as it always did. An item with
several controls (or a rating, a number, a preference) shows, under each control, every expert's answer
on it and whether round 2 must settle it: the experts split on it, or it was settled in round 1 and is
kept whatever is answered now. Every control is shown, not only the disputed ones, for three reasons:
a Label Studio project has one label config for all its tasks, so "only this item's disputed controls"
cannot be a config; what is marked is decided by the experts' own answers alone, never by the ensemble,
so the marks tell nothing of which answer the ensemble doubts; and the agreed answers are ones both
experts already gave, so showing them reveals nothing new.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from backend.labelstudio.labelconfig import expert_field, expert_name
from backend.review.source import SourceProject

SPLIT_MARK = "you split on this one: agree on it here"
SETTLED_MARK = "settled in round 1 (kept): no answer needed"
NO_ANSWER = "(no answer)"


def round1_text(source: SourceProject, experts: Sequence[str], answers: Mapping[str, str | None]) -> dict[str, str]:
    """The data fields of one round-2 task holding the experts' round-1 ``answers`` (expert -> value)."""
    if source.single_choices:
        return {expert_field(i): f"{expert_name(i)}: {source.shown_label(answers.get(email))}"
                for i, email in enumerate(experts)}
    given = [answers.get(email) for email in experts]
    per_expert = [source.control_values(value) for value in given]
    disputed = source.disputed_controls([value for value in given if value is not None])
    out = {}
    fields = source.round1_fields()
    for name in source.controls:
        spec = source.control_spec(name)
        shown = " · ".join(
            f"{expert_name(i)}: {NO_ANSWER if values.get(name) is None else spec.task_family.show_answer(spec, values[name])}"
            for i, values in enumerate(per_expert))
        out[fields[name]] = f"{shown} — {SPLIT_MARK if name in disputed else SETTLED_MARK}"
    return out
