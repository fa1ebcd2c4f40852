"""``review push --until-width W``: grow the spread control sample until the judge-assisted interval is within ±W.

Each push takes one step (the experts answer between pushes): with no sample yet it draws the first batch
(``sequential``) or the whole plan (``fixed``) by :mod:`backend.review.spread_design`; while a drawn item
is open it waits (the settled ones alone are no random sample); once all are settled it reads the same
interval the report shows (:func:`backend.review.judge_strata.control_strata`, then
:func:`backend.estimates.judge_assisted.judge_assisted_rate`) and stops, or draws the next batch. The rules
and their measured coverage: :mod:`backend.review.until_width`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from backend.common.defaults import UNTIL_WIDTH_BATCH, UNTIL_WIDTH_RULE
from backend.estimates.judge_assisted import TARGETS, JudgeAssisted, judge_assisted_rate
from backend.review.active import wrong_score
from backend.review.judge_strata import control_strata
from backend.review.outcome import ReviewOutcome
from backend.review.review_store import ReviewStore
from backend.review.sample_store import SampleStore
from backend.review.sampling import Draw
from backend.review.spread_design import SPREAD, spread_draw
from backend.review.until_width import (FIXED, RULES, TWO_STAGE, WidthTarget, more_reviews_line, next_size,
                                        planned_reviews, second_stage_size)
from backend.scoring.results import ItemResult

__all__ = ["UntilRequest", "UntilStep", "step_until_width", "until_width_extra", "width_lines"]

ErrorRule = Callable[[str, str], bool]


@dataclass(frozen=True)
class UntilRequest:
    """What ``--until-width W [--batch B] [--stop-rule R]`` asks for; ``seed`` is the push's ``--seed``."""

    target: WidthTarget
    batch: int = UNTIL_WIDTH_BATCH
    rule: str = UNTIL_WIDTH_RULE
    seed: int = 0
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError("--batch must be at least 1")
        if self.rule not in RULES:
            raise ValueError(f"--stop-rule must be one of {', '.join(RULES)}, got {self.rule!r}")


@dataclass(frozen=True)
class UntilStep:
    """One push's step: drawn (new items sent), waiting (drawn items open), reached, or plan done."""

    state: str
    drawn: int
    added: int
    planned: int
    line: str
    half_width: float | None = None  # the current interval's half-width on the rate (None: no basis yet)

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "drawn": self.drawn, "added": self.added, "planned": self.planned,
                "line": self.line, "half_width": self.half_width}


def _scores(results: Sequence[ItemResult]) -> dict[str, float]:
    """The design's population: every item with a verdict and a label, by its P(label wrong)."""
    out = {}
    for r in results:
        score = wrong_score(r) if r.prediction is not None else None
        if score is not None:
            out[str(r.id)] = min(max(score, 0.0), 1.0)
    return out


def _current(results: Sequence[ItemResult], draw: Draw, outcomes: Mapping[str, ReviewOutcome], *,
             is_error: ErrorRule, confidence: float) -> tuple[JudgeAssisted | None, str, int]:
    """(the judge-assisted result, or None with the reason and the count of open drawn items)."""
    inputs = control_strata(results, draw, outcomes, is_error=is_error)
    if inputs.strata is None:
        why = f"{inputs.open_items} drawn items not settled yet" if inputs.open_items else inputs.reason
        return None, why, inputs.open_items
    return judge_assisted_rate(inputs.strata, confidence=confidence), "", 0


def step_until_width(samples: SampleStore, source_key: str, results: Sequence[ItemResult],
                     outcomes: Mapping[str, ReviewOutcome], request: UntilRequest, *,
                     is_error: ErrorRule) -> tuple[UntilStep, Draw]:
    """Take this push's step (see the module docstring): (what happened, the project's draw after it)."""
    scores = _scores(results)
    if not scores:
        raise ValueError("--until-width needs scored items with a label: run `label-audit audit` first")
    total, target = len(scores), request.target
    half = target.rate(total)
    planned = planned_reviews(scores, half, confidence=request.confidence)
    draw = samples.draw(source_key)
    if draw is None:
        size = planned if request.rule == FIXED else min(request.batch, total)
        draw = spread_draw(scores, size=size, seed=request.seed)
        samples.grow(source_key, draw)
        line = (f"drew {len(draw.items)} control items where the judges are least sure "
                f"({'the whole plan for ' if request.rule == FIXED else 'a first batch toward '}{target.describe()})")
        return UntilStep("drawn", len(draw.items), len(draw.items), planned, line), draw
    if draw.design != SPREAD:
        raise ValueError(f"this project's control sample is a {draw.design} draw; --until-width grows only a "
                         f"{SPREAD} draw (drawn by --until-width itself)")
    result, why, open_items = _current(results, draw, outcomes, is_error=is_error, confidence=request.confidence)
    drawn = len(draw.items)
    if result is None:
        state = "waiting" if open_items else "no basis"
        return UntilStep(state, drawn, 0, planned, more_reviews_line(None, target, reason=why)), draw
    now = (result.with_judges.high - result.with_judges.low) / 2
    line = more_reviews_line(result, target)
    if request.rule == FIXED:
        if drawn < planned:  # a plan drawn by an earlier push that stopped half-way: finish it
            draw = spread_draw(scores, size=planned, seed=request.seed, previous=draw)
            samples.grow(source_key, draw)
            return UntilStep("drawn", len(draw.items), len(draw.items) - drawn, planned, line, now), draw
        note = ("" if now <= half else "; the fixed plan is done and stops here (drawing more after reading its "
                "interval would make it the sequential rule: --stop-rule sequential)")
        return UntilStep("plan done", drawn, 0, planned, line + note, now), draw
    if request.rule == TWO_STAGE:
        pilot = min(request.batch, total)
        bigger = second_stage_size(pilot=drawn, population=total, result=result, half_width=half) if drawn <= pilot \
            else drawn
        if bigger <= drawn:
            note = "" if now <= half else "; the two-stage plan is done and stops here"
            return UntilStep("plan done", drawn, 0, planned, line + note, now), draw
    else:
        bigger = next_size(drawn=drawn, population=total, batch=request.batch, result=result, half_width=half)
    if bigger <= drawn:
        return UntilStep("reached" if now <= half else "census", drawn, 0, planned, line, now), draw
    grown = spread_draw(scores, size=bigger, seed=request.seed, previous=draw)
    samples.grow(source_key, grown)
    return UntilStep("drawn", len(grown.items), len(grown.items) - drawn, planned, line, now), grown


def until_width_extra(store: ReviewStore, ledger: Any, source_key: str, request: UntilRequest, *,
                      in_review: set[str], is_error: ErrorRule) -> tuple[dict[str, Any], list[ItemResult], bool]:
    """The push's part: (the step as JSON, drawn items not in review yet in draw order, whether it drew now)."""
    results = ledger.results(source_key)
    step, draw = step_until_width(SampleStore(store.db_engine), source_key, results,
                                  {o.task_id: o for o in store.gold_labels(source_key)}, request, is_error=is_error)
    by_id = {str(r.id): r for r in results}
    extra = [by_id[i.task_id] for i in draw.items if i.task_id not in in_review and i.task_id in by_id]
    info = {**step.to_json(), "target": request.target.describe(), "rule": request.rule, "batch": request.batch}
    return info, extra, step.added > 0


def width_lines(results: Sequence[ItemResult], draw: Draw | None, outcomes: Mapping[str, ReviewOutcome], *,
                is_error: ErrorRule, targets: Sequence[WidthTarget] | None = None,
                confidence: float = 0.95) -> list[str]:
    """``review status``'s lines: "about N more reviews to reach ±W" per target (default ±2 and ±3 points)."""
    chosen = list(targets) if targets else [WidthTarget(points=100 * t) for t in TARGETS]
    if draw is None:
        return [more_reviews_line(None, t, reason="no random sample drawn") for t in chosen]
    result, why, _ = _current(results, draw, outcomes, is_error=is_error, confidence=confidence)
    return [more_reviews_line(result, t, reason=why) for t in chosen]
