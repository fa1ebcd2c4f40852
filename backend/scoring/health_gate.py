"""The health gate: a member x prompt that member health names COLLAPSED on this project leaves the verdict.

Issue 42 met it on real questions: ``generic-definitions`` answered "DESC" for 99 of 100 items while DESC was
the original of 24, and the ensemble still averaged that letter into every verdict and flag. Member health
(:mod:`backend.scoring.member_health`) already names such a member; the gate acts on the name: the member's
answers stay recorded (the ledger, the per-member figures), but the ensemble's prediction, confidence and flag
are read from the other members only.

When it is decided, so that it is deterministic: over *all* the results judged together — a `score` run's
file, an audit's stored results of the project — after they are scored, never item by item as they stream (the
first items would then be judged by another ensemble than the last). Under the rule's ``min_answers`` a member
is PENDING and never left out. Only COLLAPSED leaves a member out: low mass is named but kept (on the embedded
judge every member has low mass, and leaving all out would leave nothing). When every member is collapsed none
is left out (a verdict needs a member), and the gate says so. Single-choice families only (binary, nominal,
ordinal, in any number of option orders): their member rows are distributions over the task's labels; a family
that asks several questions per item keeps its verdicts as scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from backend.scoring.ensemble import VerdictRule, model_of, verdict
from backend.scoring.member_health import HealthTally, MemberHealth
from backend.scoring.results import QUESTION_SEP, ItemResult

__all__ = ["GATED_FAMILIES", "HealthGate", "gate_from_health", "gate_results", "regate"]

#: Families whose member rows are distributions over the task's labels (the gate re-reads their verdicts).
GATED_FAMILIES = frozenset({"binary", "nominal", "ordinal"})


@dataclass(frozen=True)
class HealthGate:
    """Which members the verdict leaves out and why (``reasons``: member id -> sentence); ``note`` says when none
    could be (every member collapsed, a family not gated)."""

    left_out: Mapping[str, str] = field(default_factory=dict)
    note: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.left_out)

    def to_dict(self) -> dict[str, Any]:
        return {"left_out": [{"member": m, "reason": r} for m, r in self.left_out.items()], "note": self.note}


def _reason(row: MemberHealth) -> str:
    return (f'COLLAPSED: answered "{row.answer}" for {row.answer_share:.0%} of {row.n} items while "{row.answer}" '
            f"is the original of {row.original_share:.0%} of them")


def gate_from_health(health: HealthTally, *, family: str) -> HealthGate:
    """The gate member health sets on these results: its COLLAPSED members, unless that is every member."""
    if family not in GATED_FAMILIES:
        return HealthGate(note=f"the {family} family keeps every member in its verdicts (not gated)")
    rows = health.members()
    collapsed = {r.member: _reason(r) for r in rows if r.collapsed}
    if collapsed and len(collapsed) == len(rows):
        return HealthGate(note=f"every member ({len(rows)}) is collapsed: none left out, a verdict needs a member")
    return HealthGate(left_out=collapsed)


def regate(result: ItemResult, gate: HealthGate, rule: VerdictRule) -> ItemResult:
    """``result`` with its verdict read from the members the gate keeps (unchanged when it leaves none of them out).

    The member rows stay as they are (every answer is kept); only prediction, confidence, probabilities, flag and
    the quorum's ``insufficient`` change. Members left out count neither for the average nor for the quorum.
    """
    if not gate.active or result.prediction is None:
        return result
    ids = [m.member_id.partition(QUESTION_SEP)[0] for m in result.members]
    if not any(i in gate.left_out for i in ids):
        return result
    kept = [m for m, i in zip(result.members, ids) if i not in gate.left_out and m.probs is not None]
    if not kept:
        return replace(result, flagged=False, insufficient=True)  # only left-out members answered: no verdict counts
    decision = verdict([m.probs for m in kept], [model_of(m.member_id) for m in kept], result.original, rule)
    if decision is None:  # pragma: no cover - kept is non-empty, so verdict answers
        return result
    return replace(result, prediction=decision.prediction, confidence=decision.confidence, probs=decision.probs,
                   flagged=decision.flagged, insufficient=decision.insufficient)


def gate_results(results: Iterable[ItemResult], rule: VerdictRule, *,
                 health: HealthTally | None = None) -> tuple[list[ItemResult], HealthGate]:
    """Decide the gate over ``results`` (all of them, the deterministic point) and re-read every verdict."""
    results = list(results)
    if health is None:
        health = HealthTally()
        for result in results:
            health.add(result)
    gate = gate_from_health(health, family=rule.spec.family)
    return [regate(r, gate, rule) for r in results], gate
