"""The confident-learning member's own flag cut, fitted on the review like the ensemble's.

Leads who run ``cleanlab:tfidf-logreg`` ask at which score of THAT member, 1 − P_member(original label),
flagging becomes more often right than wrong. The answer is the ensemble's fitted cut
(:mod:`backend.review.fitted_threshold`) with only the score source changed: the same rule (calibrated
P(wrong) ≥ 0.5), the same calibration (design-weighted isotonic on the control sample), the same PENDING
rule (:func:`backend.review.calibration.not_enough`), the same basis printed. The member's probabilities are
the ones stored per item in the results (its :class:`~backend.scoring.results.MemberResult`), so nothing is
refitted. Its control sample holds the settled drawn items the member answered, which may be fewer than the
ensemble's. What the cut would change is counted against the ensemble's current flags. Shown, not applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from backend.review.active import ErrorRule, ScoreSource, control_sample
from backend.review.fitted_threshold import NO_SAMPLE, FittedCut, fitted_flag_cut, score_name
from backend.review.outcome import ReviewOutcome
from backend.review.sampling import Draw
from backend.scoring.confident_template import KIND
from backend.scoring.results import ItemResult, base_member_id

__all__ = ["MemberCut", "confident_members", "member_cuts", "member_probs"]


def _model(member_id: str) -> str:
    """``cleanlab:tfidf-logreg/features@v1#q`` -> ``cleanlab:tfidf-logreg``: the member as leads name it."""
    return base_member_id(member_id).rsplit("/", 1)[0]


def confident_members(results: Sequence[ItemResult]) -> list[str]:
    """The confident-learning members that answered at least one item (none: no line is printed)."""
    return sorted({_model(m.member_id) for item in results for m in item.members
                   if m.probs is not None and m.member_id.split(":", 1)[0] == KIND})


def member_probs(model: str) -> ScoreSource:
    """The score source reading ``model``'s own probabilities on an item (its rows averaged; None: no answer)."""

    def probs(item: ItemResult) -> Mapping[str, float] | None:
        rows = [m.probs for m in item.members if m.probs is not None and _model(m.member_id) == model]
        if len(rows) <= 1:
            return rows[0] if rows else None
        labels = {label for row in rows for label in row}
        return {label: sum(float(row.get(label, 0.0)) for row in rows) / len(rows) for label in labels}

    return probs


@dataclass(frozen=True)
class MemberCut:
    """One member's line and its figure (None while no control sample is drawn)."""

    member: str
    line: str
    fitted: FittedCut | None

    def to_json(self) -> dict[str, Any]:
        return {"member": self.member, "line": self.line, **(self.fitted.to_json() if self.fitted else {})}


def member_cuts(results: Sequence[ItemResult], draw: Draw | None, outcomes: Mapping[str, ReviewOutcome], *,
                is_error: ErrorRule | None = None, family: str | None = None) -> list[MemberCut]:
    """One cut per confident-learning member in ``results``, for the report and ``review status``."""
    cuts = []
    for member in confident_members(results):
        subject = f"Flag cut fitted on the review for {member} alone"
        if draw is None:
            cuts.append(MemberCut(member, f"{subject}: {NO_SAMPLE}", None))
            continue
        source = member_probs(member)
        control = control_sample(results, draw, outcomes, is_error=is_error, source=source)
        fitted = fitted_flag_cut(results, control, is_error=is_error, source=source)
        cuts.append(MemberCut(member, fitted.line(score=f"its {score_name(family)}", subject=subject), fitted))
    return cuts
