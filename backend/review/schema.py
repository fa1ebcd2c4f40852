"""Tables of the blind review: what was sent to whom, what the experts answered, and the gold labels.

They live in the same database as the audit ledger (``DATABASE_URL``) but in their own ``review_*``
tables. The opaque reference (``ref``) is the only link between a review task and its source task:
Label Studio sees the ref, never the source task id, and only this database can map one to the other.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Float, Integer, String, Table, UniqueConstraint

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.sqlstore.tables import metadata  # one MetaData for the whole store

KEY = STORE_COLUMN_CHARS

# One Label Studio project per (source project, round, expert); round 2 has one shared project (expert "").
projects = Table(
    "review_projects",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("round", Integer, nullable=False),
    Column("expert", String(KEY), nullable=False),  # email; "" for the shared reconciliation project
    Column("expert_index", Integer),  # 0 -> "Expert A"
    Column("expert_user_id", Integer),
    Column("ls_project_id", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # The instance's URL when it is an expert's own (NULL: the shared review instance). Fresh instances
    # all number their first project 1, so a project id means nothing without it.
    Column("instance", String(1024)),
    # The project offers "More than one answer may be right" (review push --ambiguous-choice; NULL: no).
    # Kept so round 2 offers it too, and so a later push adds it to a new expert's project alike.
    Column("ambiguous_choice", Boolean),
    UniqueConstraint("source_project", "round", "expert", name="uq_review_projects_key"),
)

# The items under review, with the ensemble's verdict as it was when pushed.
items = Table(
    "review_items",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("rank", Integer, nullable=False),  # push order: 0 = most confident suspect
    Column("original", String(KEY)),
    Column("prediction", String(KEY)),
    Column("confidence", Float),
    Column("model_version", String(KEY)),
    Column("pushed_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("source_project", "task_id", name="uq_review_items_key"),
)

# One review task per (item, round, expert): the ref is random and unguessable.
assignments = Table(
    "review_assignments",
    metadata,
    Column("ref", String(64), primary_key=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("round", Integer, nullable=False),
    Column("expert", String(KEY), nullable=False),
    Column("ls_project_id", Integer, nullable=False, index=True),
    Column("ls_task_id", Integer),  # None until Label Studio confirmed the import
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("source_project", "task_id", "round", "expert", name="uq_review_assignments_key"),
)

# Every expert answer read back from Label Studio (replaced on each collection).
answers = Table(
    "review_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("ref", String(64), nullable=False, index=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("round", Integer, nullable=False),
    Column("expert", String(KEY), nullable=False),  # email, or "user:<id>" for a non-expert annotator
    Column("annotation_id", Integer, nullable=False),
    Column("label", String(KEY)),  # None when the annotation chose no valid label
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("ref", "annotation_id", name="uq_review_answers_key"),
)

# Annotations found in a review project but not counted: not by the project's own expert (round 1) or
# not by one of the review's experts (round 2). Replaced on each collection; reported, never counted.
ignored = Table(
    "review_ignored_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("round", Integer, nullable=False),
    Column("expert", String(KEY), nullable=False),  # the project's expert ("" for reconciliation)
    Column("task_id", String(KEY), nullable=False),
    Column("annotator", String(KEY), nullable=False),  # email, or "user:<id>"
    Column("annotation_id", Integer, nullable=False),
    Column("ls_project_id", Integer, nullable=False),
    Column("instance", String(1024)),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# The gold label of every scored item, and where it came from.
gold = Table(
    "review_gold_labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("original", String(KEY)),
    Column("prediction", String(KEY)),
    Column("confidence", Float),
    Column("gold", String(KEY)),  # None while pending/unresolved
    Column("decided_by", String(32)),  # original | experts_round1 | experts_round2
    Column("status", String(32), nullable=False),  # a GoldStatus value (older rows: final | pending | unresolved | not_scored)
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("source_project", "task_id", name="uq_review_gold_key"),
)
