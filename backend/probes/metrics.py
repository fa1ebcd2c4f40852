"""Gullibility metrics per member and condition (seed 003: MAE against the expected label 0).

Every probe deserves the negative label, so for a member's answers on one condition:

- ``mae``: mean ``|index(prediction) - index(negative)|`` over parsed answers, the prediction being
  the argmax class (ties go to the lower class). Binary tasks give the share of wrong answers;
  graded tasks weight a "3" thrice a "1", as in seed 003.
- ``share_positive``: share of parsed answers that are not the negative class.
- ``mean_p_positive``: mean probability of the non-negative classes, ``1 - p(negative)`` (for binary
  tasks exactly the positive class's probability). Moves even when the argmax does not, which
  matters for small models.
- ``n_errors``/``errors``: answers that could not be read (member errors, by reason); they are left
  out of the means, as seed 003 leaves out unparsable labels, and reported next to them.
- ``delta_*``: the change against the unmodified version of the *same* items (``RandP-100+Q`` against
  ``RandP-100``), averaged over the items answered in both.
- NonRelP manipulations (``NonRelP+Q``, ``+QWs``, ``+Inst``) count only the items this member labels
  negative when unmodified: seed 003 §3.2.1 uses passages "deemed non-relevant by both the LLM and
  NIST judges", so an item the member already calls relevant says nothing about the manipulation.
  ``n_excluded`` says how many were left out; ``n_ok`` is what the row rests on.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from statistics import fmean
from typing import Any, Iterable, Mapping, Sequence

from backend.probes.construct import Condition
from backend.task.spec import TaskSpec


@dataclass(frozen=True)
class Outcome:
    """One member's answer on one probe: ``probs`` or an ``error`` reason, never both."""

    member_id: str
    condition: Condition
    source_id: str
    probs: Mapping[str, float] | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if (self.probs is None) == (self.error is None):
            raise ValueError("an outcome has exactly one of probs and error")


@dataclass(frozen=True)
class ConditionStats:
    """One row of the probe table: one member (or ``ensemble``) on one condition."""

    member_id: str
    condition: str
    source: str
    injection: str
    length: int | None
    delimit: bool
    n: int
    n_ok: int
    n_errors: int
    errors: Mapping[str, int] = field(default_factory=dict)
    mae: float | None = None
    share_positive: float | None = None
    mean_p_positive: float | None = None
    n_paired: int = 0
    n_excluded: int = 0  # NonRelP: items the member did not label negative unmodified (left out)
    delta_mae: float | None = None
    delta_share_positive: float | None = None
    delta_p_positive: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["errors"] = dict(self.errors)
        return out


def predicted_label(probs: Mapping[str, float], labels: Sequence[str]) -> str:
    """The argmax class in class order; ties go to the earlier (lower) class."""
    best = labels[0]
    for label in labels[1:]:
        if float(probs.get(label, 0.0)) > float(probs.get(best, 0.0)):
            best = label
    return best


def absolute_error(label: str, spec: TaskSpec) -> int:
    """Distance in class order between ``label`` and the negative label (the probes' expected answer)."""
    return abs(spec.label_index(label) - spec.label_index(spec.negative_label))


def p_positive(probs: Mapping[str, float], spec: TaskSpec) -> float:
    """Probability of the non-negative classes, renormalised over the label set.

    Raises ValueError when the label set carries no mass.
    """
    total = sum(max(0.0, float(probs.get(label, 0.0))) for label in spec.labels)
    if total <= 0:
        raise ValueError("no probability mass on the label set")
    return 1.0 - max(0.0, float(probs.get(spec.negative_label, 0.0))) / total


@dataclass(frozen=True)
class _Scores:
    error: int
    positive: float
    p_pos: float


def _scores(probs: Mapping[str, float], spec: TaskSpec) -> _Scores:
    label = predicted_label(probs, spec.labels)
    return _Scores(absolute_error(label, spec), float(label != spec.negative_label), p_positive(probs, spec))


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return fmean(values) if values else None


def _judged_negative_only(scored: Mapping[tuple[str, Condition], dict[str, _Scores]], member: str,
                          condition: Condition) -> tuple[dict[str, _Scores], int]:
    """A NonRelP manipulation keeps the items the member labels negative unmodified (seed 003 §3.2.1)."""
    mine = scored[(member, condition)]
    if condition.source != "NonRelP" or condition.injection == "none":
        return mine, 0
    base = scored.get((member, condition.baseline), {})
    kept = {s: v for s, v in mine.items() if s in base and base[s].error == 0}
    return kept, len(mine) - len(kept)


def summarize(outcomes: Iterable[Outcome], spec: TaskSpec, *, delimit: bool = True) -> list[ConditionStats]:
    """One :class:`ConditionStats` per (member, condition), in first-seen order."""
    groups: dict[tuple[str, Condition], list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[(outcome.member_id, outcome.condition)].append(outcome)

    scored: dict[tuple[str, Condition], dict[str, _Scores]] = {}
    for key, group in groups.items():
        per_item: dict[str, _Scores] = {}
        for outcome in group:
            if outcome.probs is not None:
                try:
                    per_item[outcome.source_id] = _scores(outcome.probs, spec)
                except ValueError:
                    continue
        scored[key] = per_item

    rows: list[ConditionStats] = []
    for (member, condition), group in groups.items():
        mine, excluded = _judged_negative_only(scored, member, condition)
        errors = Counter(o.error for o in group if o.error is not None)
        no_mass = sum(1 for o in group if o.probs is not None) - len(scored[(member, condition)])
        if no_mass:
            errors["no_mass"] += no_mass
        base = scored.get((member, condition.baseline)) if condition.injection != "none" else None
        paired = [s for s in mine if base is not None and s in base]
        rows.append(
            ConditionStats(
                member_id=member,
                condition=condition.name,
                source=condition.source,
                injection=condition.injection,
                length=condition.length,
                delimit=delimit,
                n=len(group),
                n_ok=len(mine),
                n_errors=sum(errors.values()),
                errors=dict(sorted(errors.items())),
                mae=_mean(s.error for s in mine.values()),
                share_positive=_mean(s.positive for s in mine.values()),
                mean_p_positive=_mean(s.p_pos for s in mine.values()),
                n_paired=len(paired),
                n_excluded=excluded,
                delta_mae=_mean(mine[s].error - base[s].error for s in paired) if paired else None,
                delta_share_positive=_mean(mine[s].positive - base[s].positive for s in paired) if paired else None,
                delta_p_positive=_mean(mine[s].p_pos - base[s].p_pos for s in paired) if paired else None,
            )
        )
    return rows
