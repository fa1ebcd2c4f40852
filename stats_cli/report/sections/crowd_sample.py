"""Each annotator's accuracy against gold where gold supports an interval: the review's sample, weighted by its design.

Gold outside a sample is the original label wherever the ensemble agrees with it (Nahum's rule), so an
annotator's accuracy read against every settled item reads the annotator whose labels are the originals
against their own labels: on simulated projects (``bench/simulate``, the control design) it ran +0.05 high and
its 95 % Wilson interval held the true accuracy 75 % of the time. On the drawn items the experts settle the label
whatever the ensemble said, and each item was drawn with a known probability, so the annotator's error rate
over the items they answered is the errors section's design estimate (:func:`estimate_from_draw`: strata,
finite-population correction, unsettled drawn items bounded both ways) over their domain (every item's stratum
from the draw's frame, :mod:`stats_cli.sources.sample_frame`). Without a sample an interval is honest only when
the experts settled every item the annotators labelled (a census); otherwise the accuracy is printed alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from stats_cli.sources.sample_frame import sample_frame
from stats_cli.stats.design_estimate import estimate_from_draw

from ..inputs import AuditData

__all__ = ["SampledAccuracy", "sampled_gold", "sampled_accuracies"]


@dataclass(frozen=True)
class SampledAccuracy:
    """One annotator on the sample: design-weighted accuracy (None until every stratum has a settled item)."""

    annotator: str
    settled: int
    accuracy: float | None
    low: float
    high: float


def sampled_gold(data: AuditData) -> dict[str, str | None]:
    """Each drawn item's gold once settled (None while open or split): the experts', whatever the ensemble said."""
    by_id = {str(it.id): it for it in data.items}
    out: dict[str, str | None] = {}
    for drawn in data.sample.items if data.sample else ():
        item = by_id.get(drawn.task_id)
        gold, status = data.gold(item) if item is not None else (None, None)
        out[drawn.task_id] = gold if gold is not None and status is not None and status.settled else None
    return out


def sampled_accuracies(data: AuditData, answers: Mapping[str, Mapping[str, str]], *,
                       confidence: float = 0.95) -> tuple[dict[str, SampledAccuracy] | None, str]:
    """Annotator -> accuracy on the review's sample with the design's interval; (None, why) without one."""
    if data.sample is None:
        return None, "no review sample drawn (review push --sample N)"
    frame = data.sample_frame if data.sample_frame is not None else sample_frame(data)
    if frame is None or frame.strata is None:
        return None, frame.why if frame is not None else "no review sample drawn"
    gold = sampled_gold(data)
    flagged_now = frozenset(str(it.id) for it in data.items if it.flagged)
    out: dict[str, SampledAccuracy] = {}
    for annotator in sorted({a for by in answers.values() for a in by}):
        said = {item: by[annotator] for item, by in answers.items() if by.get(annotator) is not None}
        domain = {item: stratum for item, stratum in frame.strata.items() if item in said}
        wrong = {t: None if g is None else said[t] != g for t, g in gold.items() if t in domain}
        try:
            result = estimate_from_draw(data.sample, wrong, flagged_now=flagged_now, confidence=confidence,
                                        frame=domain)
        except ValueError as err:  # a frame that does not fit the draw: no figure rests on it
            return None, str(err)
        rate = result.rate
        if rate is None:
            continue
        out[annotator] = SampledAccuracy(annotator, rate.n, None if rate.value is None else 1.0 - rate.value,
                                         1.0 - rate.high, 1.0 - rate.low)
    return out, ""
