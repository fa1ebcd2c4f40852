"""Fixtures of the review tests: a ledger holding ensemble verdicts, written as the worker would."""

from __future__ import annotations

from typing import Callable, Sequence

import pytest

from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.review.review_store import ReviewStore

RecordVerdicts = Callable[..., tuple[Ledger, ReviewStore]]


@pytest.fixture()
def record_verdicts(tmp_path) -> RecordVerdicts:
    """``record(project, results, config=..., label_field=...)``: a fresh SQLite ledger holding ``results``
    (model version ``v1``) for the source project, and the review store beside it."""

    def record(project: int, results: Sequence[ItemResult], *, config: str,
               label_field: str) -> tuple[Ledger, ReviewStore]:
        ledger = Ledger(f"sqlite:///{tmp_path / 'audit.sqlite'}")
        ledger.set_project(str(project), label_config=config, label_field=label_field)
        ledger.record_many(str(project), "v1", list(results))
        return ledger, ReviewStore(db_engine=ledger.db_engine)

    return record
