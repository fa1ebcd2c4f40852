"""Every audited item's P(label wrong) and the settled control sample, read from the report's audit data.

The strata themselves are built by :func:`backend.review.judge_strata.settled_strata` (through
``backend/api.py``), the same function ``review push --until-width`` stops on, so the report and the push
read one interval. Here: the report's items, the draw, and each drawn item's settled verdict.
A drawn item not settled yet (open, split, "more than one answer may be right") leaves the estimate
PENDING: the experts may leave exactly the hard items open, so the settled ones are no random sample.
"""

from __future__ import annotations

import numpy as np

from backend.api import OPEN, JudgeInputs, calibrated_scores, settled_strata, wrong_score
from stats_cli.sources.audit_data import AuditData

__all__ = ["JudgeInputs", "calibrated_scores", "judge_strata"]


def judge_strata(data: AuditData) -> JudgeInputs:
    """The draw's strata with every item's score and the settled sample (see the module docstring)."""
    draw = data.sample
    if draw is None:
        return JudgeInputs(None, "no random sample drawn (review push --sample N or --until-width W)")
    position = {str(it.id): k for k, it in enumerate(data.items)}
    raw = np.array([wrong_score(it) or 0.0 for it in data.items])
    rows = []
    for drawn in draw.items:
        k = position.get(drawn.task_id)
        if k is None:
            return JudgeInputs(None, f"drawn item {drawn.task_id} is not among the audited items")
        item = data.items[k]
        gold, status = data.gold(item)
        if gold is None or not status.settled:
            return JudgeInputs(None, OPEN)
        rows.append((k, data.is_error(item, gold), drawn.stratum, 1.0 / drawn.inclusion_probability))
    return settled_strata(raw, rows, draw.strata)
