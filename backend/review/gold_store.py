"""Store every item's review outcome in the review ledger (the rule itself is :mod:`backend.review.outcome`).

``refresh_gold`` is the one writer of gold labels: `label-audit review status|gold`, and the report
before it reads, call it (through :func:`refresh_review`) after collecting the experts' answers.
"""

from __future__ import annotations

from typing import Any, Sequence

from backend.scoring.results import ItemResult
from backend.review.outcome import decide_outcome
from backend.review.sample_store import SampleStore
from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW, ReviewStore
from backend.task.spec import TaskSpec
from backend.review.collect import collect_answers


def refresh_gold(
    store: ReviewStore,
    results: Sequence[ItemResult],
    spec: TaskSpec,
    *,
    source_project: str,
    delta: int | None = None,
) -> dict[str, int]:
    """Recompute and store the outcome of every scored item; returns counts by status value."""
    experts = store.experts(source_project)
    first = store.answers_by_task(source_project, round=ROUND_REVIEW)
    second = store.answers_by_task(source_project, round=ROUND_RECONCILE)
    routed = {item.task_id for item in store.items(source_project)}
    sampled = SampleStore(store.db_engine).sampled_ids(source_project)  # controls: the experts decide them
    outcomes = [
        decide_outcome(res, spec, experts=experts, round1=first.get(str(res.id)), round2=second.get(str(res.id)),
                       routed=str(res.id) in routed, sampled=str(res.id) in sampled, delta=delta)
        for res in results
    ]
    store.set_gold(source_project, outcomes)
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.status.value] = counts.get(outcome.status.value, 0) + 1
    return counts


def refresh_review(client: Any, store: ReviewStore, source: Any, results: Sequence[ItemResult], *,
                   delta: int | None = None) -> dict[str, int]:
    """Read the experts' answers back from Label Studio, then recompute and store the outcomes."""
    collect_answers(client, store, source)
    return refresh_gold(store, results, source.spec, source_project=source.key, delta=delta)
