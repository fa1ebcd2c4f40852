"""From a stored review sample and the experts' verdicts to the project's error rate, precision and recall.

Input: the draw (:class:`backend.review.sampling.Draw`: strata, sizes, drawn items) and, for each
drawn item, whether the experts found its original label wrong (True), right (False) or have not
settled it yet (None: still in review, or split after reconciliation).

Unsettled sampled items are not dropped — experts may leave exactly the hard items open, so the
settled ones are not a random sample of the draw. Each interval is widened to hold whatever they
turn out to be: its lower end counts them as correct, its upper end as errors (a worst-case
bound, valid whatever the missing items are). The point estimate uses the settled items.

Precision and recall need flagged and unflagged strata. The ``stratified`` design has them; in a
``random`` draw the sampled items are split by their flag (post-stratification: given how many
sampled items fall in each part, each part is a simple random sample of that part).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from backend.api import ALL, Draw
from stats_cli.stats.detector import DetectorEstimate, RecallEstimate, detector_estimates
from stats_cli.stats.error_rate import METHOD, StratumCount, estimate_rate

__all__ = ["Interval", "DesignResult", "estimate_from_draw"]


@dataclass(frozen=True)
class Interval:
    """A point estimate (None when it has no basis yet) with its interval and the items it rests on."""

    value: float | None
    low: float
    high: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


@dataclass(frozen=True)
class DesignResult:
    design: str
    population: int
    sampled: int
    settled: int
    unsettled: int
    confidence: float
    rate: Interval | None
    errors_estimate: Interval | None
    precision: Interval | None
    recall: Interval | None
    errors_left: Interval | None
    method: str = METHOD

    def to_json(self) -> dict[str, Any]:
        def j(x: Interval | None) -> Any:
            return None if x is None else x.to_json()
        return {"design": self.design, "population": self.population, "sampled": self.sampled,
                "settled": self.settled, "unsettled": self.unsettled, "confidence": self.confidence,
                "method": self.method, "rate": j(self.rate), "errors_estimate": j(self.errors_estimate),
                "precision": j(self.precision), "recall": j(self.recall), "errors_left": j(self.errors_left)}


@dataclass(frozen=True)
class _Tally:
    """One stratum's population, settled sample, errors among them, and drawn items not settled."""

    name: str
    population: int
    settled: int
    errors: int
    missing: int

    def low(self) -> StratumCount:  # unsettled counted as correct
        return StratumCount(self.population, self.settled + self.missing, self.errors, self.name)

    def high(self) -> StratumCount:  # unsettled counted as errors
        return StratumCount(self.population, self.settled + self.missing, self.errors + self.missing, self.name)

    def point(self) -> StratumCount | None:
        return StratumCount(self.population, self.settled, self.errors, self.name) if self.settled else None


def _tallies(draw: Draw, errors: Mapping[str, bool | None], flagged_now: frozenset[str]) -> list[_Tally]:
    groups: dict[str, list[bool | None]] = {}
    sizes = dict(draw.strata)
    if draw.design == "random":  # post-stratify by the flag, so precision and recall exist too
        total = sizes.pop(ALL, 0)
        n_flagged = min(len(flagged_now), total)
        sizes = {"flagged": n_flagged, "unflagged": total - n_flagged}
    for item in draw.items:
        name = item.stratum
        if draw.design == "random":
            name = "flagged" if item.task_id in flagged_now else "unflagged"
        groups.setdefault(name, []).append(errors.get(item.task_id))
    # A stratum nobody drew from is bounded as a census of unknowns: all correct … all errors.
    return [_Tally(name, size, sum(v is not None for v in groups.get(name, [])),
                   sum(v is True for v in groups.get(name, [])),
                   sum(v is None for v in groups[name]) if name in groups else size)
            for name, size in sorted(sizes.items()) if size]


def _cell_name(flagged: bool | None, stratum: str) -> str:
    if flagged is None:
        return stratum
    return f"{'flagged' if flagged else 'unflagged'} (drawn from stratum {stratum!r})"


def _domain_tallies(draw: Draw, errors: Mapping[str, bool | None], flagged_now: frozenset[str],
                    frame: Mapping[str, str], *, by_flag: bool) -> list[_Tally]:
    """The domain's part of each stratum, cut by the domain's own flag when ``by_flag`` (module docstring)."""
    def cell(task_id: str, stratum: str) -> str:
        return _cell_name(task_id in flagged_now if by_flag else None, stratum)

    sizes: dict[str, int] = {}
    for task_id, stratum in frame.items():
        sizes[cell(task_id, stratum)] = sizes.get(cell(task_id, stratum), 0) + 1
    groups: dict[str, list[bool | None]] = {}
    for item in draw.items:
        if item.task_id in frame:
            groups.setdefault(cell(item.task_id, item.stratum), []).append(errors.get(item.task_id))
    return [_Tally(name, size, sum(v is not None for v in groups.get(name, [])),
                   sum(v is True for v in groups.get(name, [])),
                   sum(v is None for v in groups[name]) if name in groups else size)
            for name, size in sorted(sizes.items()) if size]


def _rate(tallies: list[_Tally], confidence: float) -> Interval | None:
    if not tallies:
        return None
    low = estimate_rate([t.low() for t in tallies], confidence=confidence).low
    high = estimate_rate([t.high() for t in tallies], confidence=confidence).high
    points = [t.point() for t in tallies]
    value = None if any(p is None for p in points) else estimate_rate(points, confidence=confidence).rate
    return Interval(value, low, high, sum(t.settled for t in tallies))


def _detector(flagged: list[_Tally], unflagged: list[_Tally], confidence: float) -> tuple[Interval, Interval, Interval]:
    """(precision, recall, errors left) with unsettled items bounded both ways."""
    pessimist = detector_estimates([t.low() for t in flagged], [t.high() for t in unflagged], confidence=confidence)
    optimist = detector_estimates([t.high() for t in flagged], [t.low() for t in unflagged], confidence=confidence)
    point: DetectorEstimate | None = None
    f_pts, u_pts = [t.point() for t in flagged], [t.point() for t in unflagged]
    if all(f_pts) and all(u_pts):
        point = detector_estimates(f_pts, u_pts, confidence=confidence)  # type: ignore[arg-type]
    recall: RecallEstimate | None = point.recall if point else None
    n_f, n_u = sum(t.settled for t in flagged), sum(t.settled for t in unflagged)
    return (Interval(point.precision.rate if point else None, pessimist.precision.low, optimist.precision.high, n_f),
            Interval(recall.rate if recall else None, pessimist.recall.low, optimist.recall.high, n_f + n_u),
            Interval(point.errors_left if point else None, optimist.unflagged.errors_low,
                     pessimist.unflagged.errors_high, n_u))


def estimate_from_draw(draw: Draw, errors: Mapping[str, bool | None], *, flagged_now: frozenset[str] = frozenset(),
                       confidence: float = 0.95, frame: Mapping[str, str] | None = None) -> DesignResult:
    """Error rate, errors in the project, and the flags' precision / recall / errors left, from one draw.

    ``frame`` (item -> the stratum it was drawn from, for every item of a domain of the draw's population):
    the figures over that domain, post-stratified by ``flagged_now`` (the domain's own flag); see the module
    docstring. Without it the population is the draw's.
    """
    if frame is not None:
        known = set(draw.strata)
        stray = sorted({s for s in frame.values() if s not in known})
        if stray:
            raise ValueError(f"the frame names strata the draw does not have: {stray[:3]}")
        moved = [i.task_id for i in draw.items if i.task_id in frame and frame[i.task_id] != i.stratum]
        if moved:
            raise ValueError(f"the frame puts drawn items in another stratum than the draw did: {moved[:3]}")
    if frame is None:
        tallies = cells = _tallies(draw, errors, flagged_now)
    else:  # the rate over the domain's part of each stratum; precision and recall over its cells by flag
        tallies = _domain_tallies(draw, errors, flagged_now, frame, by_flag=False)
        cells = _domain_tallies(draw, errors, flagged_now, frame, by_flag=True)
    population = sum(t.population for t in tallies)
    settled = sum(t.settled for t in tallies)
    drawn = draw.items if frame is None else [i for i in draw.items if i.task_id in frame]
    unsettled = sum(errors.get(i.task_id) is None for i in drawn)
    rate = _rate(tallies, confidence) if settled else None
    count = None if rate is None else Interval(
        None if rate.value is None else rate.value * population, rate.low * population, rate.high * population, rate.n)
    flagged = [t for t in cells if t.name.startswith("flagged")]
    unflagged = [t for t in cells if not t.name.startswith("flagged")]
    precision = recall = left = None
    if settled and flagged and unflagged:
        precision, recall, left = _detector(flagged, unflagged, confidence)
    return DesignResult(design=draw.design, population=population, sampled=len(drawn), settled=settled,
                        unsettled=unsettled, confidence=confidence, rate=rate, errors_estimate=count,
                        precision=precision, recall=recall, errors_left=left)
