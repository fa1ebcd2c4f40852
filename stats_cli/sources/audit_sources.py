"""Adapters to the stores other parts of label-audit own: the review store, the probe store, --models files.

Each function reads through the owner's public API and only reshapes the answer into the report's
inputs (:mod:`stats_cli.sources.audit_data`); when nothing was stored yet it returns nothing and the report's
sections say "pending".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from backend.api import Ledger
from backend.api import latest_probe_results
from backend.api import ItemResult
from backend.api import SourceProject
from backend.api import ReviewOutcome
from backend.api import SampleStore
from backend.api import Draw
from backend.api import ROUND_RECONCILE, ROUND_REVIEW, ReviewStore
from stats_cli.sources.rows import RowError, read_rows

from stats_cli.sources.audit_data import ExpertReview, ProbeRow


@dataclass
class ReviewState:
    """What the report needs from the review: who was routed, the answers, the experts, gold labels."""

    routed: frozenset[str] = frozenset()
    reviews: dict[str, ExpertReview] = field(default_factory=dict)
    experts: tuple[str, ...] = ()
    gold_labels: dict[str, ReviewOutcome] | None = None
    sample: Draw | None = None
    ignored: tuple[Any, ...] = ()  # IgnoredAnswer rows: annotations that did not count

    @property
    def sampled(self) -> frozenset[str]:
        return frozenset(i.task_id for i in self.sample.items) if self.sample else frozenset()


def review_state(ledger: Ledger, source: SourceProject, items: list[ItemResult]) -> ReviewState:
    """Read the review of ``source`` from the review store (answers and stored outcomes); writes nothing.

    The outcomes are as fresh as the last :func:`backend.review.gold_store.refresh_review` (the report's pull
    runs it first unless told not to).
    """
    store = ReviewStore(db_engine=ledger.db_engine)
    key = source.key
    projects = store.projects(key)
    if not projects:
        return ReviewState()
    known = {str(it.id) for it in items}
    before = store.expert_labels(key, stage="before")
    after = store.expert_labels(key, stage="after")
    round2 = store.answers_by_task(key, round=ROUND_RECONCILE)
    reviews = {t: ExpertReview(t, round1=before.get(t, {}), round2=round2.get(t, {}), after=after.get(t))
               for t in set(before) | set(round2) if t in known}
    names = tuple(p.display_name for p in projects if p.round == ROUND_REVIEW)
    return ReviewState(
        routed=frozenset(i.task_id for i in store.items(key)),
        reviews=reviews,
        experts=names,
        gold_labels={g.task_id: g for g in store.gold_labels(key)},
        sample=SampleStore(ledger.db_engine).draw(key),
        ignored=tuple(store.ignored_answers(key)),
    )


def probe_rows(*, db_url: str | None = None, db_engine: Any = None) -> tuple[ProbeRow, ...]:
    """The latest probe result per member and condition, from the probe store."""
    rows = latest_probe_results(None if db_engine is not None else db_url, db_engine=db_engine)
    out = []
    for row in rows:
        n = row.get("n_ok", row.get("n", 0))
        out.append(ProbeRow(
            member_id=str(row["member_id"]), condition=str(row["condition"]) + ("" if row.get("delimit", True) else " (no delimiters)"),
            n=int(n or 0), mae=row.get("mae"), share_positive=row.get("share_positive"),
            delta_mae=row.get("delta_mae"), n_excluded=int(row.get("n_excluded") or 0), detail=f"{row.get('task', '')} {str(row.get('created_at', ''))[:16]}".strip(),
            success_rate=row.get("success_rate"), successes=int(row.get("successes") or 0),
            ci=(row["ci_low"], row["ci_high"]) if row.get("ci_low") is not None else None,
            delta_p_target=row.get("delta_p_target"),
        ))
    return tuple(out)


def load_models(path: str) -> tuple[dict[str, dict[str, float]], list[RowError]]:
    """``--models FILE`` (CSV/TSV/JSONL with ``id``, ``model``, ``score``) -> model -> item id -> score.

    ``score`` is the model's probability of the positive label. Bad rows are skipped and returned
    with their line numbers, so the report can list them.
    """
    read = read_rows(path)
    out: dict[str, dict[str, float]] = {}
    for row in read.rows:
        item, model, score = row.data.get("id"), row.data.get("model"), row.data.get("score")
        try:
            value = float(score)
        except (TypeError, ValueError):
            read.errors.append(RowError(row.line, f"score {score!r} is not a number"))
            continue
        if not math.isfinite(value):  # "nan" parses as a float but is no score
            read.errors.append(RowError(row.line, f"score {score!r} is not a finite number"))
            continue
        if item is None or not model:
            read.errors.append(RowError(row.line, "needs id and model"))
            continue
        out.setdefault(str(model), {})[str(item)] = value
    return out, list(read.errors)
