"""The review store: review projects, assignments (source task -> opaque ref), answers, gold labels.

One class over the ``review_*`` tables so the commands, the reports (``audit-stats report``) and
``sync-gold`` read the review the same way. Writes are idempotent (upserts by natural keys), so a
re-run of ``review push`` or ``reconcile`` never duplicates a row.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

from sqlalchemy import Engine, Row, Table, delete, select, update

from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.tables import ensure_schema
from backend.labelstudio.labelconfig import expert_name
from backend.ledger.upsert import upsert
from backend.review import schema
from backend.review.outcome import GoldStatus, ReviewOutcome, answers_after

GoldLabel = ReviewOutcome  # the name earlier callers import

ROUND_REVIEW = 1
ROUND_RECONCILE = 2
SHARED = ""  # the "expert" of the shared reconciliation project


def _now() -> datetime:
    return datetime.now(timezone.utc)


def new_ref() -> str:
    """An opaque reference: 128 random bits, unrelated to any id."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True)
class ReviewProject:
    source_project: str
    round: int
    expert: str
    expert_index: int | None
    expert_user_id: int | None
    ls_project_id: int
    instance: str | None = None  # URL of the expert's own instance; None: the shared review instance
    ambiguous_choice: bool = False  # offers "More than one answer may be right" (backend.review.ambiguous)

    @property
    def display_name(self) -> str:
        """"Expert A"... for round-1 projects, "Reconciliation" for the shared one."""
        return "Reconciliation" if self.expert_index is None else expert_name(self.expert_index)


@dataclass(frozen=True)
class IgnoredAnswer:
    """An annotation in a review project that does not count: who made it, on which item, in which project."""

    round: int
    expert: str  # the project's expert ("" for the reconciliation project)
    task_id: str
    annotator: str
    annotation_id: int
    ls_project_id: int
    instance: str | None = None


@dataclass(frozen=True)
class ReviewItem:
    task_id: str
    rank: int
    original: str | None
    prediction: str | None
    confidence: float | None
    model_version: str | None = None


@dataclass(frozen=True)
class Assignment:
    ref: str
    task_id: str
    round: int
    expert: str
    ls_project_id: int
    ls_task_id: int | None


@dataclass(frozen=True)
class Answer:
    ref: str
    task_id: str
    round: int
    expert: str
    annotation_id: int
    label: str | None


class ReviewStore:
    """Review state in the audit database.

    Parameters
    ----------
    url : str, optional
        Database URL; default ``DATABASE_URL`` or the SQLite file of :func:`backend.sqlstore.connection.default_url`.
    db_engine : Engine, optional
        An db_engine to share with the ledger (then ``url`` must be None).
    """

    def __init__(self, url: str | None = None, *, db_engine: Engine | None = None) -> None:
        if url is not None and db_engine is not None:
            raise ValueError("give either url or db_engine, not both")
        self.db_engine: Engine = db_engine if db_engine is not None else make_db_engine(url)
        ensure_schema(self.db_engine)

    def _rows(self, table: Table, source_project: str, order_by: Sequence[str], **equal: Any) -> list[Row]:
        """Rows of one source project, filtered on the ``equal`` columns that are not None."""
        cols = table.c
        query = select(table).where(cols.source_project == str(source_project))
        for name, value in equal.items():
            if value is not None:
                query = query.where(cols[name] == value)
        with self.db_engine.connect() as conn:
            return list(conn.execute(query.order_by(*(cols[c] for c in order_by))))

    # ---- review projects -------------------------------------------------------------------
    def projects(self, source_project: str, *, round: int | None = None) -> list[ReviewProject]:
        """Review projects of a source project, round-1 experts in letter order first."""
        rows = self._rows(schema.projects, source_project, ("round", "expert_index", "id"), round=round)
        return [
            ReviewProject(r.source_project, r.round, r.expert, r.expert_index, r.expert_user_id, r.ls_project_id,
                          r.instance, bool(r.ambiguous_choice))
            for r in rows
        ]

    def add_project(self, project: ReviewProject) -> None:
        row = {
            "source_project": str(project.source_project), "round": project.round, "expert": project.expert,
            "expert_index": project.expert_index, "expert_user_id": project.expert_user_id,
            "ls_project_id": project.ls_project_id, "created_at": _now(), "instance": project.instance,
            "ambiguous_choice": project.ambiguous_choice,
        }
        with self.db_engine.begin() as conn:
            upsert(conn, schema.projects, [row], keys=("source_project", "round", "expert"))

    def ambiguous_choice(self, source_project: str) -> bool | None:
        """Whether the review's round-1 projects offer "More than one answer may be right" (None: no project yet)."""
        found = self.projects(source_project, round=ROUND_REVIEW)
        return any(p.ambiguous_choice for p in found) if found else None

    def experts(self, source_project: str) -> list[str]:
        """The round-1 experts' emails in letter order (A, B, ...)."""
        return [p.expert for p in self.projects(source_project, round=ROUND_REVIEW)]

    # ---- items -----------------------------------------------------------------------------
    def items(self, source_project: str) -> list[ReviewItem]:
        """The items under review, in push order."""
        return [
            ReviewItem(r.task_id, r.rank, r.original, r.prediction, r.confidence, r.model_version)
            for r in self._rows(schema.items, source_project, ("rank",))
        ]

    def add_items(self, source_project: str, items: Sequence[ReviewItem]) -> None:
        rows = [
            {
                "source_project": str(source_project), "task_id": str(i.task_id), "rank": i.rank,
                "original": i.original, "prediction": i.prediction, "confidence": i.confidence,
                "model_version": i.model_version, "pushed_at": _now(),
            }
            for i in items
        ]
        with self.db_engine.begin() as conn:
            upsert(conn, schema.items, rows, keys=("source_project", "task_id"))

    # ---- assignments -----------------------------------------------------------------------
    def assignments(
        self, source_project: str, *, round: int | None = None, expert: str | None = None
    ) -> list[Assignment]:
        rows = self._rows(schema.assignments, source_project, ("created_at", "ref"), round=round, expert=expert)
        return [Assignment(r.ref, r.task_id, r.round, r.expert, r.ls_project_id, r.ls_task_id) for r in rows]

    def assign(
        self, source_project: str, task_ids: Sequence[str], *, round: int, expert: str, ls_project_id: int
    ) -> list[Assignment]:
        """New assignments (fresh refs) for tasks that have none yet in this round for this expert."""
        have = {a.task_id for a in self.assignments(source_project, round=round, expert=expert)}
        fresh = [
            Assignment(new_ref(), str(t), round, expert, ls_project_id, None)
            for t in dict.fromkeys(str(t) for t in task_ids) if t not in have
        ]
        now = _now()
        rows = [
            {"ref": a.ref, "source_project": str(source_project), "task_id": a.task_id, "round": round,
             "expert": expert, "ls_project_id": ls_project_id, "ls_task_id": None, "created_at": now}
            for a in fresh
        ]
        if rows:
            with self.db_engine.begin() as conn:
                conn.execute(schema.assignments.insert(), rows)
        return fresh

    def set_task_ids(self, ls_task_ids: Mapping[str, int]) -> None:
        """Record the Label Studio task created for each ref."""
        if not ls_task_ids:
            return
        cols = schema.assignments.c
        with self.db_engine.begin() as conn:
            for ref, task in ls_task_ids.items():
                conn.execute(update(schema.assignments).where(cols.ref == ref).values(ls_task_id=int(task)))

    # ---- answers ---------------------------------------------------------------------------
    def replace_answers(self, project: ReviewProject, answers: Iterable[Answer], *,
                        ignored: Iterable[IgnoredAnswer] = ()) -> int:
        """Make the stored answers (and ignored annotations) of one review project exactly these.

        The project is named by its source project, round and expert, never by its Label Studio id
        alone: two experts' instances both have a project 1. Deleted annotations vanish.
        """
        cols = schema.assignments.c
        refs = select(cols.ref).where(cols.source_project == str(project.source_project),
                                      cols.round == project.round, cols.expert == project.expert)
        now = _now()
        key = str(project.source_project)
        rows = [
            {"ref": a.ref, "source_project": key, "task_id": a.task_id, "round": a.round,
             "expert": a.expert, "annotation_id": int(a.annotation_id), "label": a.label, "updated_at": now}
            for a in answers
        ]
        skipped = [{**i.__dict__, "source_project": key, "updated_at": now} for i in ignored]
        ign = schema.ignored.c
        with self.db_engine.begin() as conn:
            conn.execute(delete(schema.answers).where(schema.answers.c.ref.in_(refs)))
            conn.execute(delete(schema.ignored).where(ign.source_project == key, ign.round == project.round,
                                                      ign.expert == project.expert))
            if rows:
                conn.execute(schema.answers.insert(), rows)
            if skipped:
                conn.execute(schema.ignored.insert(), skipped)
        return len(rows)

    def ignored_answers(self, source_project: str) -> list[IgnoredAnswer]:
        """Annotations found in the review projects that were not counted (see :class:`IgnoredAnswer`)."""
        rows = self._rows(schema.ignored, source_project, ("round", "expert", "task_id", "annotation_id"))
        return [IgnoredAnswer(r.round, r.expert, r.task_id, r.annotator, r.annotation_id, r.ls_project_id,
                              r.instance) for r in rows]

    def answers(self, source_project: str, *, round: int | None = None) -> list[Answer]:
        rows = self._rows(schema.answers, source_project, ("task_id", "annotation_id"), round=round)
        return [Answer(r.ref, r.task_id, r.round, r.expert, r.annotation_id, r.label) for r in rows]

    def answers_by_task(self, source_project: str, *, round: int) -> dict[str, dict[str, str | None]]:
        """``{task_id: {expert: label}}``; an expert with several annotations keeps the latest."""
        out: dict[str, dict[str, str | None]] = {}
        for ans in self.answers(source_project, round=round):
            out.setdefault(ans.task_id, {})[ans.expert] = ans.label
        return out

    def expert_labels(self, source_project: str, *, stage: str = "before") -> dict[str, dict[str, str | None]]:
        """Each expert's label per reviewed item, keyed "Expert A", "Expert B"... (agreement statistics).

        ``stage="before"``: round-1 answers. ``"after"``: an expert's round-2 answer where they gave
        one, else the round-2 consensus where there was one, else their round-1 answer.
        """
        if stage not in ("before", "after"):
            raise ValueError(f"stage must be 'before' or 'after', got {stage!r}")
        names = {p.expert: p.display_name for p in self.projects(source_project, round=ROUND_REVIEW)}
        first = self.answers_by_task(source_project, round=ROUND_REVIEW)
        out = {t: {names.get(e, e): lab for e, lab in by.items()} for t, by in first.items()}
        if stage == "before":
            return out
        for task_id, by in self.answers_by_task(source_project, round=ROUND_RECONCILE).items():
            second = {names.get(email, email): lab for email, lab in by.items()}
            out[task_id] = answers_after(out.get(task_id, {}), second, experts=list(names.values()))
        return out

    # ---- gold labels -----------------------------------------------------------------------
    def set_gold(self, source_project: str, outcomes: Sequence[ReviewOutcome]) -> None:
        """Store each item's outcome (``decided_by`` is kept for readers of the older columns)."""
        now = _now()
        rows = [
            {"source_project": str(source_project), "task_id": g.task_id, "original": g.original,
             "prediction": g.prediction, "confidence": g.confidence, "gold": g.gold,
             "decided_by": g.decided_by, "status": g.status.value, "updated_at": now}
            for g in outcomes
        ]
        with self.db_engine.begin() as conn:
            upsert(conn, schema.gold, rows, keys=("source_project", "task_id"))

    def gold_labels(self, source_project: str, *, status: GoldStatus | None = None) -> list[ReviewOutcome]:
        """Stored outcomes of a project (``status=`` one status only)."""
        return [
            ReviewOutcome(r.task_id, r.original, r.prediction, r.confidence, r.gold,
                          GoldStatus.from_stored(r.status, r.decided_by))
            for r in self._rows(schema.gold, source_project, ("id",))
            if status is None or GoldStatus.from_stored(r.status, r.decided_by) is status
        ]

    def gold_counts(self, source_project: str) -> dict[str, int]:
        """``{status value: n}`` over the project's stored outcomes."""
        out: dict[str, int] = {}
        for outcome in self.gold_labels(source_project):
            out[outcome.status.value] = out.get(outcome.status.value, 0) + 1
        return out

