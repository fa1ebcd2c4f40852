"""Adapters to the stores other parts of label-audit own: H5's review store, H6's probe store, --models files.

Each function only reads through the owner's public API and reshapes the answer into the report's
inputs; while a store is not installed or empty, it returns nothing and the section says "pending".
"""

from __future__ import annotations

from typing import Any, Mapping

from backend.taskspec import TaskSpec

from stats_cli.rows import RowError, read_rows

from .inputs import ExpertReview, ProbeRow


def review_records(project: str, *, db_url: str | None, known: set[str], client: Any = None,
                   spec: TaskSpec | None = None) -> tuple[frozenset[str], dict[str, ExpertReview]]:
    """(items routed to review, reviews by item id) for a source project, from H5's review store."""
    return frozenset(), {}


def probe_rows(*, db_url: str | None) -> tuple[ProbeRow, ...]:
    """The latest probe result per member and condition, from H6's probe store."""
    return ()


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
        if item is None or not model:
            read.errors.append(RowError(row.line, "needs id and model"))
            continue
        out.setdefault(str(model), {})[str(item)] = value
    return out, list(read.errors)
