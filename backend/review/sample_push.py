"""`review push --sample N`: draw (once) the control sample and pick the drawn items not yet in review.

The population is every audited item with an ensemble verdict and an original label, each marked
flagged (by the same threshold the push uses) and in review or not; :mod:`backend.review.sampling`
draws from it and :mod:`backend.review.sample_store` keeps the draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import Engine

from backend.scoring.results import ItemResult
from backend.review.sample_store import SampleStore, ensure_draw
from backend.review.sampling import DESIGNS, Candidate, Draw, blind_order

__all__ = ["SampleRequest", "draw_for_push", "review_order"]


@dataclass(frozen=True)
class SampleRequest:
    """What ``--sample N --design D [--bands ...]`` asks for; ``seed`` is the push's ``--seed``."""

    size: int
    design: str = "random"
    seed: int = 0
    bands: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError("--sample must be at least 1")
        if self.design not in DESIGNS:
            raise ValueError(f"--design must be one of {', '.join(DESIGNS)}, got {self.design!r}")
        if any(not 0.0 < b < 1.0 for b in self.bands):
            raise ValueError("confidence bands must lie strictly between 0 and 1")


def draw_for_push(engine: Engine, ledger: Any, source_key: str, request: SampleRequest, *,
                  in_review: set[str], threshold: float | None) -> tuple[Draw, bool, list[ItemResult]]:
    """(the project's draw, whether it was made now, drawn items not yet in review, in draw order)."""
    results = [r for r in ledger.results(source_key) if r.prediction is not None and r.original is not None]
    flagged = {str(r.id) for r in ledger.flagged(source_key, threshold=threshold)}
    candidates = [Candidate(str(r.id), flagged=str(r.id) in flagged, in_review=str(r.id) in in_review,
                            confidence=r.confidence) for r in results]
    draw, new = ensure_draw(SampleStore(engine), source_key, candidates, budget=request.size,
                            design=request.design, seed=request.seed, bands=request.bands)
    by_id = {str(r.id): r for r in results}
    extra = [by_id[i.task_id] for i in draw.items if i.task_id not in in_review and i.task_id in by_id]
    return draw, new, extra


def review_order(task_ids: Sequence[str], *, engine: Engine, source_key: str, expert: str) -> list[str] | None:
    """A keyed-hash order for an expert's tasks when the project has a sample (None: keep the push's order).

    Sorting by confidence would put the controls (confident agreements) last; a hash of the task id
    keyed by the draw's seed and the expert puts suspects and controls in one indistinguishable order.
    """
    draw = SampleStore(engine).draw(source_key)
    if draw is None:
        return None
    return blind_order(list(task_ids), key=f"{source_key}:{draw.seed}:{expert}")
