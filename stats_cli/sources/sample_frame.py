"""Which stratum of the review's draw every audited item belongs to, drawn or not (the sampling frame).

The stored draw (:mod:`backend.review.sample_store`) keeps each stratum's size and the drawn items, not the
stratum of every item left undrawn. The design estimate of the whole project needs no more; the estimate
over a *domain* (one control of a several-control project: the items that show it, cut by the control's own
flag) needs the domain's size in every stratum, so the frame is rebuilt here:

* a drawn item's stratum is stored;
* when one stratum only was not drawn in full (a random draw's ``all``; a stratified draw with the flagged
  items all in review and no confidence bands), every undrawn item of the population is in it;
* otherwise the draw's own rule assigns them (:func:`backend.review.sampling.assign_strata`, with the flag,
  the review routing and the confidence the item has now, and the bands read from the strata's names; a
  ``spread`` draw by the judges' certainty, :func:`backend.review.spread_design.certainty_stratum`).

The rebuilt frame must give every stratum its stored size; when it does not (the ledger changed since the
draw), the frame is unknown and :class:`SampleFrame` says why, so no figure rests on a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from backend.api import ALL, SPREAD, Candidate, Draw, assign_strata, certainty_stratum, wrong_score

from .audit_data import AuditData

__all__ = ["SampleFrame", "sample_frame"]

_BAND = re.compile(r"confidence ([0-9.]+)–([0-9.]+)$")


@dataclass(frozen=True)
class SampleFrame:
    """Item id -> its stratum for every item of the draw's population; ``strata`` None with ``why`` when unknown."""

    strata: Mapping[str, str] | None
    why: str = ""
    #: What the items of the frame are, as the report's table says it ("the items that show this control").
    what: str = ""

    def cut(self, ids: frozenset[str], *, what: str = "") -> "SampleFrame":
        """The frame of a domain: only the items in ``ids`` (``what`` names them)."""
        if self.strata is None:
            return SampleFrame(None, self.why, what)
        return SampleFrame({k: v for k, v in self.strata.items() if k in ids}, what=what)


def _bands(names: Mapping[str, int]) -> tuple[float, ...]:
    edges = {float(x) for name in names for m in [_BAND.search(name)] if m for x in m.groups()}
    return tuple(sorted(e for e in edges if 0.0 < e < 1.0))


def sample_frame(data: AuditData) -> SampleFrame | None:
    """The frame of ``data.sample`` over ``data.items`` (None without a draw); see the module docstring."""
    draw: Draw | None = data.sample
    if draw is None:
        return None
    frame = {i.task_id: i.stratum for i in draw.items}
    drawn_in = {name: sum(1 for i in draw.items if i.stratum == name) for name in draw.strata}
    open_strata = [name for name, size in draw.strata.items() if size > drawn_in[name]]
    undrawn = [it for it in data.items if it.prediction is not None and it.original is not None
               and str(it.id) not in frame]
    if len(open_strata) == 1:
        frame.update({str(it.id): open_strata[0] for it in undrawn})
    elif open_strata and draw.design == SPREAD:  # review push --until-width: strata by the judges' certainty
        frame.update({str(it.id): certainty_stratum(min(max(wrong_score(it) or 0.0, 0.0), 1.0)) for it in undrawn})
    elif open_strata:
        candidates = [Candidate(str(it.id), flagged=bool(it.flagged), in_review=str(it.id) in data.routed,
                                confidence=it.confidence) for it in undrawn]
        design = "random" if set(draw.strata) == {ALL} else "stratified"
        for name, ids in assign_strata(candidates, design=design, bands=_bands(draw.strata)).items():
            frame.update({task_id: name for task_id in ids})
    counts: dict[str, int] = {}
    for name in frame.values():
        counts[name] = counts.get(name, 0) + 1
    if counts != {name: size for name, size in draw.strata.items() if size}:
        return SampleFrame(None, "the draw's strata cannot be rebuilt from the items audited now (their sizes "
                                 f"were {dict(draw.strata)}, the items give {counts}): the ledger changed since "
                                 "the draw")
    return SampleFrame(frame)
