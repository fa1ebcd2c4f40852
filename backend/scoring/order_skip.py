"""Whether an item's later option orders can still change its flag, read from its first order's answers.

Each member's final distribution is its mean over the orders it answered in (:mod:`backend.families.orders`).
With ``n`` orders, a member that answered the first order and is asked again ends at ``(a1 + (n-1) b) / n``
for some ``b`` in the simplex (an order it fails in counts as ``b = a1``); a member not asked again (its
answer does not read the order) keeps ``a1``; a member that failed the first order and is asked again is
wholly unknown. With ``k`` first answers, ``k_r`` of them asked again and ``f`` failed-but-asked members, the
ensemble's final mean is ``(1 - W) c + W q`` for some ``q`` in the simplex, where

    ``W = ((n-1)/n * k_r + f) / (k + f)`` and ``c`` = the first answers weighted 1 (kept) or 1/n (asked again).

Fewer later answers only shrink ``W`` and the sets nest (``c`` lies in the simplex), so the reachable set is
exactly that scaled simplex, with vertices ``v_d = (1 - W) c + W e_d``. Over it:

- *never flagged* iff no vertex ``v_d`` of a class ``d`` that disagrees with the original is flagged through
  ``d``: ``v_d`` maximises ``x_d`` and every lead ``x_d - x_e`` at once (exact);
- *always flagged* when some disagreeing ``d`` stays the strict leader above the threshold at every point:
  ``(1 - W) c_d > t`` and ``(1 - W)(c_d - c_e) - W > tie`` for every ``e`` (exact for binary and nominal tasks
  at ``t >= 0.5``, where every other way to flag is covered; a sufficient condition otherwise).

The first order's own mean is one reachable point, so an item settled here keeps the first order's flag.
Consequence for the default (every member asked again, ``n = 2``): ``W = 1/2``, so half the weight can always
lift any class with first-order mass above 0.5 or make the original the leader; at ``t = 0.5`` nothing ever
settles. Savings need a member that is not asked again, a threshold above 0.5, or a lossy rule.

The lossy rule (:func:`margin_skippable`, ``LABEL_AUDIT_ORDER_SKIP=margin:M``) asks the later orders only where
the first order's confidence against the given label lies within ``M`` of the threshold: an item far from the
cut either way keeps its first order's verdict. It is defined here once, for the engine and for the bench's
replay over full two-order runs (``bench/order_policies.py``), so what was measured is what runs.
:class:`OrderSkip` is the setting: off, exact or margin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Collection, Mapping, Sequence

from backend.scoring.early_exit import FLOAT_MARGIN
from backend.scoring.ensemble import TIE_TOLERANCE, VerdictRule, disagrees, model_of, resolve_threshold

if TYPE_CHECKING:
    from backend.scoring.results import ItemResult

__all__ = ["OrderSkip", "flag_settled", "later_weight", "margin_skippable", "skippable"]

#: What ``LABEL_AUDIT_ORDER_SKIP`` accepts, for its error message.
ORDER_SKIP_FORMS = "false (off), true (exact) or margin:M with 0 < M < 1"
_ON, _OFF = {"1", "true", "yes", "on", "exact"}, {"0", "false", "no", "off"}


@dataclass(frozen=True)
class OrderSkip:
    """Which items' later option orders a run leaves unasked: none (``off``), those whose first order settles
    the flag (``exact``, lossless) or those whose first order is more than ``margin`` from the threshold
    (``margin``, lossy: the model version says so, :attr:`version_tag`).

    Falsy when off, so ``if config.order_skip`` reads as before.
    """

    mode: str = "off"
    margin: float | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("off", "exact", "margin"):
            raise ValueError(f"order skip mode must be off, exact or margin, got {self.mode!r}")
        if (self.mode == "margin") != (self.margin is not None):
            raise ValueError("a margin goes with mode 'margin' and only with it")
        if self.margin is not None and not 0.0 < self.margin < 1.0:
            raise ValueError(f"the order-skip margin must lie strictly between 0 and 1, got {self.margin!r}")

    def __bool__(self) -> bool:
        return self.mode != "off"

    def __str__(self) -> str:
        return f"margin:{self.margin!r}" if self.mode == "margin" else self.mode

    @classmethod
    def parse(cls, raw: "str | bool | OrderSkip | None", *, name: str = "LABEL_AUDIT_ORDER_SKIP") -> "OrderSkip":
        """The setting from its text (``false``/``off``, ``true``/``exact``, ``margin:0.1``) or a bool; an empty
        or None value is off (the default). Anything else is a ValueError naming ``name``."""
        if isinstance(raw, OrderSkip):
            return raw
        if raw is None or isinstance(raw, bool):
            return cls("exact") if raw else cls()
        text = raw.strip().lower()
        if not text or text in _OFF:
            return cls()
        if text in _ON:
            return cls("exact")
        kind, _, value = text.partition(":")
        if kind.strip() == "margin":
            try:
                margin = float(value)
            except ValueError:
                margin = float("nan")
            if 0.0 < margin < 1.0:
                return cls("margin", margin)
        raise ValueError(f"{name} must be {ORDER_SKIP_FORMS}, got {raw!r}")

    @property
    def version_tag(self) -> str | None:
        """What enters the model version: the lossy rule only (off and exact give the same verdicts)."""
        return str(self) if self.mode == "margin" else None


def later_weight(first: Sequence[Mapping[str, float] | None], asked_again: Sequence[bool], orders: int = 2) -> float:
    """``W``: the largest weight the later orders can have in the final mean (module docstring)."""
    if orders < 1 or len(first) != len(asked_again):
        raise ValueError("one asked_again flag per member and orders >= 1")
    share = (orders - 1) / orders
    k = sum(a is not None for a in first)
    k_r = sum(a is not None and again for a, again in zip(first, asked_again))
    f = sum(a is None and again for a, again in zip(first, asked_again)) if orders > 1 else 0
    return (share * k_r + f) / (k + f) if k + f else 1.0


def _centre(first: Sequence[Mapping[str, float] | None], asked_again: Sequence[bool], labels: Sequence[str],
            orders: int) -> dict[str, float]:
    weights = [(1.0 / orders if again else 1.0) for a, again in zip(first, asked_again) if a is not None]
    answers = [a for a in first if a is not None]
    total = sum(weights)
    return {lab: sum(w * float(a.get(lab, 0.0)) for w, a in zip(weights, answers)) / total for lab in labels}


def flag_settled(first: Sequence[Mapping[str, float] | None], models: Sequence[str], asked_again: Sequence[bool],
                 original: str | None, rule: VerdictRule, *, orders: int = 2) -> bool | None:
    """The flag every answer of the later orders leaves the item with, or None while they could change it.

    Parameters
    ----------
    first : sequence
        Every member's first-order answer (normalised; None: it failed or was not called).
    models : sequence of str
        Each member's model (:func:`backend.scoring.ensemble.model_of`), for the quorum.
    asked_again : sequence of bool
        Whether the later orders ask the member again (False: its answer does not read the order).
    rule : VerdictRule
        Threshold, delta, quorum and task, as the engine and the merge of the orders take them.
    """
    if len(first) != len(models):
        raise ValueError("one model per member")
    answered = [m for a, m in zip(first, models) if a is not None]
    if not answered or not rule.quorum.met(answered, models):
        return None  # more answers could still lift the item over the quorum
    if original is None:
        return False  # an unlabelled item never disagrees
    labels, spec = rule.spec.labels, rule.spec
    weight = later_weight(first, asked_again, orders)
    if weight >= 1.0:
        return None
    centre = _centre(first, asked_again, labels, orders)
    cut = resolve_threshold(spec, rule.threshold)
    against = [d for d in labels if disagrees(d, original, spec, delta=rule.delta)]
    for d in against:
        low, slack = (1 - weight) * centre[d], TIE_TOLERANCE + FLOAT_MARGIN
        if low > cut + FLOAT_MARGIN and all((1 - weight) * (centre[d] - centre[e]) - weight > slack
                                            for e in labels if e != d):
            return True
    for d in against:
        vertex = {e: (1 - weight) * centre[e] + weight * (e == d) for e in labels}
        if vertex[d] > cut - FLOAT_MARGIN and all(vertex[d] - vertex[e] > TIE_TOLERANCE - FLOAT_MARGIN
                                                  for e in labels if e != d):
            return None  # some later answer flags it through d
    return False


def skippable(first: "ItemResult", member_ids: Sequence[str], asked_again: Collection[str], rule: VerdictRule, *,
              orders: int) -> bool:
    """Whether an item's later orders can be left unasked: its first-order verdict ``first`` settles the flag.

    ``member_ids``: every member of the ensemble (one not in ``first``, e.g. left out by early exit, counts as
    unanswered); ``asked_again``: the ids the later orders would ask.
    """
    by_id = {m.member_id: m.probs for m in first.members}
    answers = [by_id.get(i) for i in member_ids]
    return flag_settled(answers, [model_of(i) for i in member_ids], [i in asked_again for i in member_ids],
                        first.original, rule, orders=orders) is not None


def margin_skippable(first: "ItemResult", original: str | None, rule: VerdictRule, *, margin: float) -> bool:
    """Whether the lossy rule leaves an item's later orders unasked: its first-order verdict ``first`` puts the
    largest probability of a class that disagrees with ``original`` more than ``margin`` from the threshold.

    An item without a first-order verdict, without an original, or short of the quorum is asked again (more
    answers could still make it count). Used by the engine and by the bench's replay alike.
    """
    if first.probs is None or original is None or first.insufficient:
        return False
    against = [p for lab, p in first.probs.items() if disagrees(lab, original, rule.spec, delta=rule.delta)]
    return abs(max(against, default=0.0) - resolve_threshold(rule.spec, rule.threshold)) > margin
