"""One :class:`AuditData` per control of a several-control project, so every statistic applies per control.

A project with several controls (a SummEval-style config with four 1–5 dimensions, a rating beside a
preference) is audited as one composite task: each label value is a JSON object ``{control: value}``, and
each item's verdict holds one verdict per control (``ItemResult.questions``, ``id`` = the control's name).
The statistics and the report sections know single controls of one family. This module cuts the audit
data into one view per control: the control's own spec (its family, labels and flag rule), each item's
verdict on that control, and every label the data holds — originals, expert answers of both rounds, crowd
annotations, gold — replaced by its value for that control. The sections then run on each view unchanged,
each with its control's family (weighted κ for ratings, the preference figures for a pairwise control).

An item the control was not asked on (a control shown only under a condition the original annotation does
not meet: the composite verdict holds no verdict for it, or one whose error is ``not_shown``) is left out of
that control's view and counted. The review's draw was stratified on the composite flag ("flagged on any
control"); each view carries the draw's frame cut to the control's domain, so its design estimate is over
the items that show the control, post-stratified by the control's own flag
(:mod:`stats_cli.sources.sample_frame`, :mod:`stats_cli.stats.design_estimate`). A value
that cannot be split (a malformed stored answer) counts as no answer for every control and is counted too:
bad input never takes the report down.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from backend.api import GoldStatus, ItemResult, ReviewOutcome, TaskSpec, disagrees
from stats_cli.sources.audit_data import AuditData, ExpertReview
from stats_cli.sources.sample_frame import SampleFrame, sample_frame

__all__ = ["NOT_SHOWN", "Control", "ControlView", "control_views", "describe", "split_by_control"]

#: The error reason of a control's verdict on an item where its condition does not hold (not asked).
NOT_SHOWN = "not_shown"
#: The error reason of a control's verdict that the composite verdict does not hold.
NO_VERDICT = "no_control_verdict"

Parts = Callable[[str], Mapping[str, str]]


@dataclass(frozen=True)
class Control:
    """What the view needs of a control: its Label Studio name, tag, title and own spec."""

    name: str
    spec: TaskSpec
    tag: str = ""
    title: str = ""

    @property
    def label(self) -> str:
        """How the report names the control: its title when it has one, with its name."""
        return f"{self.title} ({self.name})" if self.title and self.title != self.name else self.name


@dataclass(frozen=True)
class ControlView:
    """One control's audit data and what was left out of it (items it was not asked on, unreadable values)."""

    control: Control
    data: AuditData
    not_shown: int = 0
    unreadable: int = 0


def control_views(data: AuditData) -> tuple[ControlView, ...]:
    """One view per control of ``data.spec.controls`` (in control order); ``()`` for a one-control project.

    The composite family splits every label value (``control_values(spec, value)`` -> ``{control: value}``).
    """
    controls = tuple(getattr(data.spec, "controls", ()) or ())
    if not controls:
        return ()
    family, spec = data.spec.task_family, data.spec
    return split_by_control(
        data, [Control(c.name, c.spec, tag=c.tag, title=c.title) for c in controls],
        parts=lambda value: family.control_values(spec, value))


def split_by_control(data: AuditData, controls: Sequence[Control], *, parts: Parts) -> tuple[ControlView, ...]:
    """The views of ``data`` for ``controls``, each label value split by ``parts`` (value -> {control: value}).

    ``parts`` may raise ValueError on a value it cannot read: that value then counts as no answer.
    """
    reader = _Reader(parts)
    frame = sample_frame(data)
    views = [_view(data, control, reader, frame) for control in controls]
    return tuple(replace(v, unreadable=reader.bad) for v in views)


class _Reader:
    """Splits values once each, remembering how many could not be read."""

    def __init__(self, parts: Parts) -> None:
        self._parts, self._seen, self.bad_values = parts, {}, set()

    @property
    def bad(self) -> int:
        return len(self.bad_values)

    def part(self, value: str | None, name: str) -> str | None:
        if value is None:
            return None
        if value not in self._seen:
            try:
                self._seen[value] = dict(self._parts(value))
            except (ValueError, TypeError, AttributeError):
                self._seen[value] = {}
                self.bad_values.add(value)
        return self._seen[value].get(name)

    def answers(self, by_person: Mapping[str, str | None], name: str, *, keep_none: bool) -> dict[str, str | None]:
        out = {person: self.part(value, name) for person, value in by_person.items()}
        return out if keep_none else {p: v for p, v in out.items() if v is not None}


def _verdict(item: ItemResult, name: str, reader: _Reader) -> ItemResult:
    """The item's verdict on one control, under the item's id (the composite keeps it under the control's)."""
    original = reader.part(item.original, name)
    question = next((q for q in item.questions if str(q.id) == name), None)
    if question is None and item.questions:  # the composite holds a verdict per asked control: this one was not
        return replace(item, prediction=None, confidence=None, probs=None, flagged=False, error=NOT_SHOWN,
                       questions=(), members=())
    if question is None:  # the item has no verdict at all (an error, or not scored yet)
        error = item.error or NO_VERDICT
        return ItemResult(id=item.id, original=original, prediction=None, confidence=None, probs=None,
                          flagged=False, error=error, line=item.line, data=item.data, input_hash=item.input_hash)
    return replace(question, id=item.id, original=question.original if question.original is not None else original,
                   line=item.line, data=item.data, input_hash=question.input_hash or item.input_hash)


def _view(data: AuditData, control: Control, reader: _Reader, frame: SampleFrame | None) -> ControlView:
    name = control.name
    items, not_shown = [], 0
    for item in data.items:
        verdict = _verdict(item, name, reader)
        if verdict.reason == NOT_SHOWN:
            not_shown += 1
            continue
        items.append(verdict)
    ids = {str(it.id) for it in items}
    reviews = {}
    for item_id, review in data.reviews.items():
        if item_id not in ids:
            continue
        after = None if review.after is None else reader.answers(review.after, name, keep_none=True)
        reviews[item_id] = ExpertReview(
            item_id, round1=reader.answers(review.round1, name, keep_none=True),
            # an expert's round-2 answer without this control (round 2 showed only the disputed ones) is no
            # answer here: kept as None it would overwrite their round-1 answer in ``final_answers``
            round2=reader.answers(review.round2, name, keep_none=False),
            after=after if after and any(v is not None for v in after.values()) else None)
    crowd = {item_id: answers for item_id, by_annotator in data.crowd.items() if item_id in ids
             for answers in [reader.answers(by_annotator, name, keep_none=False)] if answers}
    view = AuditData(
        project=data.project, spec=control.spec, items=tuple(items), routed=data.routed & ids, reviews=reviews,
        crowd=crowd, threshold=data.threshold, experts=data.experts, sampled=data.sampled & ids,
        sample=data.sample, gold_labels=_gold(data, control.spec, items, reviews, reader, name),
        # the design estimate over the control's domain, cut by its own flag (stats_cli.stats.design_estimate)
        sample_frame=None if frame is None else frame.cut(frozenset(
            str(it.id) for it in items if it.prediction is not None and it.original is not None),
            what="the scored items that show this control" if not_shown else "every scored item: this control is always shown"))
    return ControlView(control, view, not_shown=not_shown)


def _gold(data: AuditData, spec: TaskSpec, items: Sequence[ItemResult], reviews: Mapping[str, ExpertReview],
          reader: _Reader, name: str) -> dict[str, ReviewOutcome] | None:
    """Stored outcomes settled for the whole item, cut to the control; the rest is decided per control.

    A settled item's gold value holds the control's gold (the original where the ensemble agrees on the
    control, else the experts' answer). Its status is the control's own: agreed with the ensemble where the
    control's verdict agrees (and the item was not a sampled control), else the experts' round-1 answer when
    they all gave it, else the reconciliation. An item not settled as a whole (pending, split) may still be
    settled on this control: :class:`AuditData` decides it from the control's answers by the same rule.
    """
    if data.gold_labels is None:
        return None
    out: dict[str, ReviewOutcome] = {}
    for item in items:
        key = str(item.id)
        stored = data.gold_labels.get(key)
        if stored is None or not stored.status.settled or item.prediction is None or item.error is not None:
            continue
        gold = reader.part(stored.gold, name)
        if gold is None:
            continue
        original = spec.normalize_label(item.original)
        if key not in data.sampled and original is not None and not disagrees(item.prediction, original, spec):
            status = GoldStatus.AGREED_WITH_ENSEMBLE
        else:
            review = reviews.get(key)
            firsts = {v for v in (review.round1.values() if review else ()) if v is not None}
            status = GoldStatus.EXPERTS_AGREE if firsts == {gold} and not (review and review.round2) \
                else GoldStatus.RECONCILED if stored.status.by_experts else stored.status
        out[key] = ReviewOutcome(key, item.original, item.prediction, item.confidence, gold, status)
    return out


def describe(view: ControlView) -> dict[str, Any]:
    """The control as the report's overview lists it."""
    spec = view.data.spec
    return {"control": view.control.name, "title": view.control.title, "tag": view.control.tag,
            "family": spec.family, "labels": list(spec.labels), "items": len(view.data.items),
            "scored": len(view.data.scored), "flagged": sum(1 for it in view.data.items if it.flagged),
            "not_shown": view.not_shown}
