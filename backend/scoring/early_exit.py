"""Early exit: stop calling members once the rest cannot change an item's flag or prediction.

The full ensemble's distribution is the mean of the answers of the members that answered. With ``k``
answers so far averaging ``m`` and ``r`` members left, whatever they answer (or if some fail), the
final mean is ``(1 - w) m + w q`` for some ``q`` in the probability simplex and ``w`` between 0 and
``W = r / (k + r)``; because the simplex is convex and contains ``m``, every smaller ``w`` is covered
by ``W``. So the reachable set is exactly ``{(1 - W) m + W q : q in simplex}``, and over it:

- the prediction stays ``p`` and never ties iff for every other class ``c`` the worst case, all
  remaining mass on ``c``, keeps ``p`` ahead: ``(1 - W)(m_p - m_c) - W > tie tolerance``;
- the confidence ``a_p`` ranges over ``[(1 - W) m_p, (1 - W) m_p + W]``, so a disagreeing
  prediction is flagged either way iff the low end exceeds the threshold, and never iff the high end
  does not;
- the quorum only gets easier with more answers, so a verdict that meets it now meets it finally.

This is an exact bound, not a heuristic: an item stopped here gets the same flag and prediction as
the full ensemble, whatever the skipped members would have said (property-tested exhaustively).
Its confidence and averaged probabilities rest on the members that were called.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from backend.scoring.ensemble import (
    TIE_TOLERANCE, Decision, Quorum, VerdictRule, argmax, average, disagrees, resolve_threshold, verdict,
)
from backend.task.spec import TaskSpec

#: Extra room over the float comparisons, so rounding in the final average cannot cross a bound.
FLOAT_MARGIN = 1e-9


def settled(
    answers: Sequence[Mapping[str, float] | None],
    models: Sequence[str],
    ensemble_models: Sequence[str],
    original: str | None,
    rule: VerdictRule,
) -> Decision | None:
    """The verdict the full ensemble must reach under ``rule``, or None while the rest could still change it.

    Parameters
    ----------
    answers, models : sequences
        The members called so far: their answers (None: failed) and models.
    ensemble_models : sequence of str
        The model of every member of the ensemble (called or not), for the quorum and the count left.
    rule : VerdictRule
        The task, threshold, delta and quorum, exactly as :func:`backend.scoring.ensemble.verdict` takes them.
    """
    remaining = len(ensemble_models) - len(answers)
    if remaining < 0:
        raise ValueError("more answers than ensemble members")
    if remaining == 0:
        return verdict(answers, list(models), original, rule)
    answered = [m for a, m in zip(answers, models) if a is not None]
    if not answered or not rule.quorum.met(answered, ensemble_models):
        return None
    now = verdict(answers, list(models), original, rule)
    if now is None or now.tie or now.probs is None:
        return None
    weight = remaining / (len(answered) + remaining)
    mean, top = now.probs, now.prediction
    for label in rule.spec.labels:
        if label != top and (1 - weight) * (mean[top] - mean[label]) - weight <= TIE_TOLERANCE + FLOAT_MARGIN:
            return None  # the rest could tie it or overturn the prediction
    if not disagrees(top, original, rule.spec, delta=rule.delta):
        return now  # never flagged, whatever the confidence
    cut = resolve_threshold(rule.spec, rule.threshold)
    low, high = (1 - weight) * mean[top], (1 - weight) * mean[top] + weight
    if low > cut + FLOAT_MARGIN or high <= cut - FLOAT_MARGIN:
        return now
    return None


def first_wave(known: Sequence[str], pending: Sequence[str], ensemble_models: Sequence[str], quorum: Quorum) -> int:
    """How many of the ``pending`` members (their models, in calling order) to send at once.

    No verdict can settle before the quorum is met, so the smallest prefix that can meet it (if all of
    it answers) goes out together; after that, members are sent one at a time while the verdict is
    open. ``known``: the models of members already answered (cache hits).
    """
    for n in range(len(pending) + 1):
        if quorum.met([*known, *pending[:n]], ensemble_models):
            return n  # 0: the cached answers may settle the item already
    return len(pending)


def more_needed(answers: Sequence[Mapping[str, float] | None], ensemble_size: int, spec: TaskSpec) -> int:
    """A lower bound on how many more answers any settling needs, so they can be sent at once.

    The easiest way to settle is every new answer all-in on the current leader ``p`` (it widens p's
    lead over every class at once, and settling on any other class needs more). The least ``j`` for
    which even that keeps the prediction bound is a lower bound: calling ``j`` members together never
    makes a call that calling them one by one would have avoided.
    """
    mean = average(answers, spec.labels)
    remaining = ensemble_size - len(answers)
    if mean is None or remaining <= 1:
        return 1
    k = sum(a is not None for a in answers)
    top = argmax(mean, spec.labels)
    for j in range(1, remaining):
        weight = (remaining - j) / (k + remaining)
        gap = min((k * (mean[top] - mean[c]) + j) / (k + j) for c in spec.labels if c != top)
        if (1 - weight) * gap - weight > TIE_TOLERANCE + FLOAT_MARGIN:
            return j
    return remaining
