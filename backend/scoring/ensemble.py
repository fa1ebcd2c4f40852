"""Ensemble arithmetic (Nahum et al. 2024, §3): normalise, average, decide, flag. Pure functions.

Each member gives a probability per class; the engine normalises each member's answer once, at the
member boundary (:func:`normalize`, so ``MemberResult.probs`` are stored normalised), and everything
downstream (:func:`average`, :func:`decide`, :func:`verdict`, early exit, the report) takes normalised
distributions, checked cheaply by :func:`check_distribution` instead of silently rescaled. The ensemble
averages the distributions of the members that answered (members that errored are left out, not counted
as uniform), predicts the argmax and calls its averaged probability the confidence. An item is flagged as a suspected label error when

- the prediction disagrees with the original label under the task's flag rule (:func:`flag_rule`:
  binary/nominal any difference; ordinal a distance above ``delta`` and/or a crossing of a class
  boundary, e.g. relevance 0-1 vs 2-3),
- the confidence *exceeds* the threshold (Nahum §3: "confidence exceeding a predefined threshold"),
- the top classes do not tie (a tie is no confident verdict, whichever label the item carries), and
- enough members answered (:class:`Quorum`); an item below quorum is ``insufficient``, never flagged.

Every path that asks "does the ensemble disagree?" (the engine, the Label Studio worker, the gold rule,
the report) calls :func:`disagrees`, so they cannot drift apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from backend.common import defaults
from backend.task.spec import BUILTIN_SPECS, TaskSpec, load_spec

DEFAULT_DELTA = defaults.DEFAULT_DELTA
#: Two top probabilities closer than this are a tie (averages of symmetric answers differ in the last bits).
TIE_TOLERANCE = 1e-9
#: How far from 1 a normalised distribution's sum may be (rounding only; anything more is a caller's bug).
SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class FlagRule:
    """When a prediction disagrees with the original label.

    ``delta``: ordinal distance strictly above it disagrees (Nahum App. A.2: 1). ``boundary``: the
    lowest label of the upper side of a class boundary; prediction and original on opposite sides
    disagree (seed 003: relevance 2-3 relevant, 0-1 not). With both set, either one suffices.
    Binary and nominal tasks ignore both: any difference disagrees.
    """

    delta: int | None = DEFAULT_DELTA
    boundary: str | None = None

    def describe(self) -> str:
        parts = []
        if self.delta is not None:
            parts.append(f"|prediction - original| > {self.delta}")
        if self.boundary is not None:
            parts.append(f"prediction and original on opposite sides of {self.boundary!r}")
        return " or ".join(parts) or "never"


@dataclass(frozen=True)
class Quorum:
    """How many members must answer before an item's verdict counts.

    ``min_share``: at least this share of the ensemble's members (default: half). ``every_model``:
    every model of the ensemble answered through at least one of its prompts.
    """

    min_share: float = defaults.QUORUM_SHARE
    every_model: bool = defaults.QUORUM_MODELS

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_share <= 1.0:
            raise ValueError(f"quorum share must be within [0, 1], got {self.min_share}")

    def met(self, answered_models: Sequence[str], ensemble_models: Sequence[str]) -> bool:
        """True when ``answered_models`` (one entry per answering member) satisfy the quorum."""
        needed = max(1, math.ceil(self.min_share * len(ensemble_models) - 1e-9))
        if len(answered_models) < needed:
            return False
        return not self.every_model or set(ensemble_models) <= set(answered_models)


DEFAULT_QUORUM = Quorum()


@dataclass(frozen=True)
class Decision:
    """The ensemble's verdict on one item (``tie``: the top classes tie; ``insufficient``: below quorum).

    ``probs`` is the averaged distribution the verdict was read from.
    """

    prediction: str
    confidence: float
    flagged: bool
    tie: bool = False
    insufficient: bool = False
    probs: Mapping[str, float] | None = field(default=None, compare=False)


def model_of(member_id: str) -> str:
    """``provider:model`` of a member id ``provider:model/template@vN`` (the quorum's model key)."""
    return member_id.rsplit("/", 1)[0]


def _values(probs: Mapping[str, float], labels: Sequence[str]) -> dict[str, float]:
    """``probs`` over ``labels`` (missing labels 0); ValueError on a negative or non-finite value."""
    values = {}
    for label in labels:
        value = float(probs.get(label, 0.0))
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"probability of {label!r} must be finite and non-negative, got {value}")
        values[label] = value
    return values


def normalize(probs: Mapping[str, float], labels: Sequence[str]) -> dict[str, float]:
    """Restrict ``probs`` to ``labels`` (missing labels get 0) and rescale to sum to 1.

    The member boundary's one normalisation (the engine, on each member's answer). Raises ValueError on
    negative or non-finite values, or when no mass is left on the labels.
    """
    values = _values(probs, labels)
    total = sum(values.values())
    if total <= 0:
        raise ValueError(f"no probability mass on the labels {list(labels)}")
    return {label: value / total for label, value in values.items()}


def check_distribution(probs: Mapping[str, float], labels: Sequence[str]) -> dict[str, float]:
    """``probs`` over ``labels`` (missing labels 0), after checking it is already a distribution.

    Raises ValueError naming the problem (a non-finite or negative value, or a sum off 1 by more than
    :data:`SUM_TOLERANCE`, e.g. mass on other labels) rather than rescaling: normalising is the
    engine's job, done once per member (:func:`normalize`).
    """
    values = _values(probs, labels)
    total = sum(values.values())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"a distribution over {list(labels)} must sum to 1, got {total} (normalise it first)")
    return values


def average(distributions: Iterable[Mapping[str, float] | None], labels: Sequence[str]) -> dict[str, float] | None:
    """Mean of the (normalised) distributions, skipping None (members that failed).

    Returns None when no member produced a distribution; raises ValueError on a distribution that is
    not normalised (:func:`check_distribution`).
    """
    checked = [check_distribution(d, labels) for d in distributions if d is not None]
    if not checked:
        return None
    return {label: sum(d[label] for d in checked) / len(checked) for label in labels}


def argmax(probs: Mapping[str, float], labels: Sequence[str]) -> str:
    """The most probable label; a tie goes to the label that comes first in class order.

    The tie-break only names a prediction: :func:`decide` never flags a tied item.
    """
    best = labels[0]
    for label in labels[1:]:
        if probs[label] > probs[best]:
            best = label
    return best


def top_tie(probs: Mapping[str, float], labels: Sequence[str]) -> bool:
    """True when the two most probable classes are equally probable (within :data:`TIE_TOLERANCE`)."""
    ranked = sorted((probs[label] for label in labels), reverse=True)
    return ranked[0] - ranked[1] <= TIE_TOLERANCE


def resolve_threshold(spec: TaskSpec, threshold: float | None) -> float:
    """``threshold`` itself, or the family default (0.55 binary and multi-label, 0.45 nominal, 0.2 ordinal).

    A binary argmax always holds at least 0.5, so its cut sits just above (the family's comment says on what
    it was chosen); for the ordinal SummEval experiments Nahum et al. start their confidence bins at 0.2
    (App. A.4.1). Each family states its own (``default_threshold``).
    """
    value = spec.task_family.default_threshold if threshold is None else float(threshold)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold must be within [0, 1], got {value}")
    return value


@lru_cache(maxsize=None)
def _builtin_flag(name: str) -> tuple[tuple[str, ...], object]:
    builtin = load_spec(name)
    return builtin.labels, builtin.flag


def flag_rule(spec: TaskSpec, *, delta: int | None = None) -> FlagRule:
    """The task's flag rule: the spec's ``flag:`` entry, else the built-in spec of the same name, else
    ``|Δ| > 1``; ``delta`` (the CLI's ``--delta``) overrides the distance part.

    A spec read from a Label Studio label config carries no ``flag:`` entry, so it borrows the rule of
    the built-in spec it is named after (when the labels match): the worker and the CLI agree.
    """
    raw = spec.flag
    if raw is None and spec.name in BUILTIN_SPECS:
        labels, builtin_raw = _builtin_flag(spec.name)
        raw = builtin_raw if labels == spec.labels else None
    if raw is not None and not isinstance(raw, Mapping):
        raise ValueError(f"spec {spec.name!r}: flag must be a mapping with delta and/or boundary")
    raw = raw or {"delta": DEFAULT_DELTA}
    spec_delta = raw.get("delta")
    boundary = raw.get("boundary")
    rule = FlagRule(
        delta=int(delta) if delta is not None else (None if spec_delta is None else int(spec_delta)),
        boundary=None if boundary is None else str(boundary),
    )
    if rule.delta is not None and rule.delta < 0:
        raise ValueError(f"delta must be >= 0, got {rule.delta}")
    if rule.boundary is not None and rule.boundary not in spec.labels[1:]:
        raise ValueError(f"spec {spec.name!r}: flag boundary {rule.boundary!r} must be one of {spec.labels[1:]}")
    if rule.delta is None and rule.boundary is None:
        raise ValueError(f"spec {spec.name!r}: flag rule needs delta and/or boundary")
    return rule


def describe_flag_rule(spec: TaskSpec, *, delta: int | None = None) -> str:
    """The rule in words, for summaries: ordinal tasks name their distance/boundary, others any difference."""
    return spec.task_family.describe_flag_rule(spec, delta=delta)


def disagrees(prediction: str, original: str | None, spec: TaskSpec, *, delta: int | None = None) -> bool:
    """Whether ``prediction`` disagrees with ``original`` under the task family's rule.

    Binary and nominal: they differ. Ordinal: distance above ``delta`` or opposite sides of the
    boundary (:func:`flag_rule`). Multi-label: the sets differ. An unlabelled item (``original`` None)
    never disagrees.
    """
    if original is None:
        return False
    return spec.task_family.disagrees(spec, prediction, original, delta=delta)


def label_error(gold: str | None, original: str | None, spec: TaskSpec, *, delta: int | None = None) -> bool:
    """Whether the original label is wrong given the ``gold`` label: what the family calls a disagreement.

    Every count of label errors (confirmed errors, the design estimate, precision and recall, the triage's
    learnt cut and its P(wrong)) goes through this one predicate, so an error is what the flag looks for: on
    an ordinal scale a grade within ``delta`` of the gold one is no error (Nahum et al.: a Likert
    disagreement is more than one point), as it raises no flag. No gold or no original: no error.
    """
    return gold is not None and disagrees(gold, original, spec, delta=delta)


def decide(
    probs: Mapping[str, float],
    original: str | None,
    spec: TaskSpec,
    *,
    threshold: float | None = None,
    delta: int | None = None,
    insufficient: bool = False,
) -> Decision:
    """Prediction (argmax), confidence, and the suspected-error flag.

    Parameters
    ----------
    probs : mapping
        The averaged distribution over ``spec.labels``, normalised (checked by :func:`check_distribution`).
    original : str or None
        The item's original label.
    threshold : float, optional
        Confidence must exceed it; None uses the family default (0.55 binary, 0.45 nominal, 0.2 ordinal).
    delta : int, optional
        Overrides the distance part of the spec's flag rule (see :func:`flag_rule`).
    insufficient : bool
        The answers fell short of the quorum: the verdict is kept but never flagged.
    """
    if delta is not None and delta < 0:
        raise ValueError(f"delta must be >= 0, got {delta}")
    checked = check_distribution(probs, spec.labels)
    prediction = argmax(checked, spec.labels)
    confidence = checked[prediction]
    tie = top_tie(checked, spec.labels)
    flagged = (
        not insufficient
        and not tie
        and confidence > resolve_threshold(spec, threshold)
        and disagrees(prediction, original, spec, delta=delta)
    )
    return Decision(prediction, confidence, flagged, tie=tie, insufficient=insufficient, probs=checked)


@dataclass(frozen=True)
class VerdictRule:
    """How the members' answers become a verdict: the task, the flag threshold and delta, the quorum.

    One object, so the engine, early exit (:func:`backend.scoring.early_exit.settled`) and the report
    state these once. ``threshold``/``delta`` None: the task's defaults (:func:`resolve_threshold`,
    :func:`flag_rule`).
    """

    spec: TaskSpec
    threshold: float | None = None
    delta: int | None = None
    quorum: Quorum = DEFAULT_QUORUM

    def __post_init__(self) -> None:
        if self.delta is not None and self.delta < 0:
            raise ValueError(f"delta must be >= 0, got {self.delta}")
        resolve_threshold(self.spec, self.threshold)  # raises on a threshold outside [0, 1]


def verdict(
    answers: Sequence[Mapping[str, float] | None],
    models: Sequence[str],
    original: str | None,
    rule: VerdictRule,
) -> Decision | None:
    """Average the members' ``answers`` (None: the member failed) and decide, applying the quorum.

    ``models[i]`` is the model of member ``i`` (:func:`model_of`). Returns None when nobody answered.
    """
    if len(answers) != len(models):
        raise ValueError("one model per answer slot")
    probs = average(answers, rule.spec.labels)
    if probs is None:
        return None
    answered = [m for a, m in zip(answers, models) if a is not None]
    return decide(probs, original, rule.spec, threshold=rule.threshold, delta=rule.delta,
                  insufficient=not rule.quorum.met(answered, models))
