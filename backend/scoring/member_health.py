"""Member health: which member x prompt answers one option whatever the item, or barely names an option at all.

A judge can fail without erroring. Issue 34 met one: a prompt that asked "which definition fits best?" made
a 1.5B model answer option B for 99 % of items while B was the original label of 24 % — its votes only
added a letter bias to the ensemble. A tiny model shows the other failure: it puts a tenth of its
probability on the class tokens and the rest on anything else, so its "distribution" is noise renormalised.

The rule, per member x prompt (a family's per-question rows pooled: ``member#question`` counts for
``member``, each answer compared with that question's original):

- **collapsed** — over ``n`` answers on items with an original label, one label is the member's answer for
  at least ``collapse_share`` of them while that same label is the original of at most ``spread_share`` of
  those items. (When the originals' most frequent label has a share of at most ``spread_share`` — the
  originals are spread — any answer given that often qualifies; a member that answers the majority class
  of a data set where that class *is* 85 % of the originals is not named.)
- **low mass** — the mean probability mass its answers put on the class tokens (``MemberResult.raw_mass``,
  before renormalising) is below ``min_mass``.

Each figure carries the number of answers it rests on; below ``min_answers`` the verdict is PENDING (the
figures are still shown, marked so). Thresholds: :mod:`backend.common.defaults` (``HEALTH_*``). Why by hand:
these are counts and shares over the result stream, folded as they come (a run may hold millions of items).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from backend.common import defaults
from backend.scoring.results import QUESTION_SEP, ItemResult

__all__ = ["HealthRule", "HealthTally", "MemberHealth", "member_health", "stored_health"]


@dataclass(frozen=True)
class HealthRule:
    """The thresholds of the rule (see the module docstring); the constructor validates them."""

    min_answers: int = defaults.HEALTH_MIN_ANSWERS
    collapse_share: float = defaults.HEALTH_COLLAPSE_SHARE
    spread_share: float = defaults.HEALTH_SPREAD_SHARE
    min_mass: float = defaults.HEALTH_MIN_MASS

    def __post_init__(self) -> None:
        if self.min_answers < 1:
            raise ValueError(f"min_answers must be >= 1, got {self.min_answers}")
        for name in ("collapse_share", "spread_share", "min_mass"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {value}")
        if self.spread_share >= self.collapse_share:
            raise ValueError(f"spread_share ({self.spread_share}) must be below collapse_share ({self.collapse_share})")

    def describe(self) -> str:
        """The rule in one sentence, for summaries and the report."""
        return (f"named when one label is >= {self.collapse_share:.0%} of a member's answers but <= "
                f"{self.spread_share:.0%} of the same items' originals (collapsed), or when its mean class-token "
                f"mass is < {self.min_mass:.2f} (low mass); under {self.min_answers} answers: PENDING")

    def to_dict(self) -> dict[str, Any]:
        return {"min_answers": self.min_answers, "collapse_share": self.collapse_share,
                "spread_share": self.spread_share, "min_mass": self.min_mass}


@dataclass(frozen=True)
class MemberHealth:
    """One member x prompt's figures and verdicts (None: PENDING, too few answers)."""

    member: str
    n: int  # answers on items with an original label: what the shares rest on
    answer: str | None  # the member's most frequent answer among those
    answer_share: float | None
    original_share: float | None  # share of the same items whose original is ``answer``
    original_modal: str | None  # the originals' most frequent label
    original_modal_share: float | None
    mass: float | None  # mean class-token mass over the answers that report one
    mass_n: int
    collapsed: bool | None
    low_mass: bool | None

    @property
    def named(self) -> bool:
        """True when the member is collapsed or has low mass (PENDING never names it)."""
        return bool(self.collapsed or self.low_mass)

    @property
    def status(self) -> str:
        """``COLLAPSED``, ``LOW MASS`` (both: joined by a comma); else ``ok``, or ``PENDING`` while a figure is."""
        words = [w for w, on in (("COLLAPSED", self.collapsed), ("LOW MASS", self.low_mass)) if on]
        if words:
            return ", ".join(words)
        return "PENDING" if self.collapsed is None or self.low_mass is None else "ok"

    def to_dict(self) -> dict[str, Any]:
        return {"member": self.member, "n": self.n, "answer": self.answer, "answer_share": self.answer_share,
                "original_share": self.original_share, "original_modal": self.original_modal,
                "original_modal_share": self.original_modal_share, "mass": self.mass, "mass_n": self.mass_n,
                "collapsed": self.collapsed, "low_mass": self.low_mass, "named": self.named, "status": self.status}


@dataclass
class _Counts:
    answers: Counter = field(default_factory=Counter)  # the member's answer -> count (items with an original)
    originals: Counter = field(default_factory=Counter)  # the same items' originals -> count
    mass_sum: float = 0.0
    mass_n: int = 0


def _top(probs: Mapping[str, float]) -> str:
    """The most probable label (a tie: the first in the distribution's own order, which is class order)."""
    labels = list(probs)
    best = labels[0]
    for label in labels[1:]:
        if probs[label] > probs[best]:
            best = label
    return best


class HealthTally:
    """Folds item results into per-member counts; :meth:`members` applies the rule."""

    def __init__(self, rule: HealthRule | None = None) -> None:
        self.rule = rule or HealthRule()
        self._counts: dict[str, _Counts] = {}

    def add(self, result: ItemResult) -> None:
        """Count the answers of one item (question rows compared with their question's original)."""
        originals = {q.id: q.original for q in result.questions}
        for member in result.members:
            if not member.probs:
                continue
            base, sep, question = member.member_id.partition(QUESTION_SEP)
            counts = self._counts.setdefault(base, _Counts())
            if member.raw_mass is not None:
                counts.mass_sum += float(member.raw_mass)
                counts.mass_n += 1
            original = originals.get(question) if sep else result.original
            if original is None:
                continue
            answer = _top(member.probs)
            counts.answers[answer] += 1
            counts.originals[str(original)] += 1

    def members(self) -> list[MemberHealth]:
        """One :class:`MemberHealth` per member that answered, in first-seen order."""
        return [self._judge(member, counts) for member, counts in self._counts.items()]

    def _judge(self, member: str, c: _Counts) -> MemberHealth:
        rule = self.rule
        n = sum(c.answers.values())
        answer, answer_n = c.answers.most_common(1)[0] if n else (None, 0)
        modal, modal_n = c.originals.most_common(1)[0] if n else (None, 0)
        original_share = c.originals.get(answer, 0) / n if n else None
        enough, mass_enough = n >= rule.min_answers, c.mass_n >= rule.min_answers
        mass = c.mass_sum / c.mass_n if c.mass_n else None
        collapsed = None if not enough else (answer_n / n >= rule.collapse_share
                                             and (original_share or 0.0) <= rule.spread_share)
        low_mass = None if not mass_enough or mass is None else mass < rule.min_mass
        return MemberHealth(member, n, answer, answer_n / n if n else None, original_share, modal,
                            modal_n / n if n else None, mass, c.mass_n, collapsed, low_mass)

    def to_dict(self) -> dict[str, Any]:
        """JSON: the rule, every member's figures, and the ids of the members named."""
        rows = self.members()
        return {"rule": self.rule.to_dict(), "rule_text": self.rule.describe(),
                "members": [r.to_dict() for r in rows], "named": [r.member for r in rows if r.named]}


def member_health(results: Iterable[ItemResult], *, rule: HealthRule | None = None) -> HealthTally:
    """The health tally of stored or streamed results (the ledger's, the report's)."""
    tally = HealthTally(rule)
    for result in results:
        tally.add(result)
    return tally


def stored_health(ledger: Any, project: str, *, model_version: str | None = None,
                  rule: HealthRule | None = None) -> dict[str, Any] | None:
    """The health of a project's stored results (``model_version``, default the latest), read page by page.

    What `label-audit review status` shows: the audit's members as the ledger holds them. None when the
    project has no stored result.
    """
    version = model_version or ledger.latest_version(str(project))
    if version is None:
        return None
    tally = member_health(ledger.iter_results(str(project), version), rule=rule)
    return {"model_version": version, **tally.to_dict()}
