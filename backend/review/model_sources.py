"""One judge model, one source of the truth model: its prompts' distributions averaged into one."""

from __future__ import annotations

from typing import Mapping

from backend.scoring.ensemble import model_of

__all__ = ["one_source_per_model"]


def one_source_per_model(members: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Member id -> distribution, one model's prompts averaged into one distribution under the model's id.

    Why: a model's prompts share its knowledge and its mistakes, so as separate sources Dawid–Skene counts
    one model's opinion once per prompt. On simulated projects (``bench/bench_source_accuracy.py``) with
    three models of three prompts each, posteriors between 0.9 and 0.99 averaged 0.96 where 0.92 of the
    items were right with a source per prompt, and were calibrated with the prompts averaged (the
    measurement is in ``docs/triage.md``). Members without a prompt in their id (``cleanlab:``) stay as they are.
    """
    groups: dict[str, list[Mapping[str, float]]] = {}
    for member, probs in members.items():
        if probs:
            groups.setdefault(model_of(member), []).append(probs)
    out = {}
    for model, rows in groups.items():
        labels = {lab for row in rows for lab in row}
        out[model] = {lab: sum(float(row.get(lab, 0.0) or 0.0) for row in rows) / len(rows) for lab in labels}
    return out
