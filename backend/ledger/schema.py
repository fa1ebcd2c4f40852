"""Tables of the audit ledger: the durable record of every scored task.

Redis only carries the queue; everything the report needs (member probabilities, ensemble verdicts,
flags, crowd labels, job status) lives in these tables, keyed so a re-run writes over itself.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.sqlstore.tables import metadata  # one MetaData for the whole store

KEY = STORE_COLUMN_CHARS  # length of id and label columns: LS project/task ids and model versions are short

results = Table(
    "audit_results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("model_version", String(KEY), nullable=False),
    Column("original", String(KEY)),
    Column("prediction", String(KEY)),
    Column("confidence", Float),
    Column("flagged", Boolean, nullable=False, default=False),
    Column("error", Text),
    Column("suspicious_text", Boolean, nullable=False, default=False),
    Column("result_json", Text, nullable=False),  # the full ItemResult.to_json()
    Column("input_hash", String(64)),  # ItemResult.input_hash: the inputs this verdict is valid for
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("imported_at", DateTime(timezone=True)),  # when its prediction reached Label Studio
    UniqueConstraint("project", "task_id", "model_version", name="uq_audit_results_key"),
)

members = Table(
    "audit_members",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("model_version", String(KEY), nullable=False),
    Column("member_id", String(KEY), nullable=False),
    Column("probs_json", Text),
    Column("raw_mass", Float),
    Column("method", String(64)),
    Column("error", String(KEY)),
    Column("error_detail", Text),
    Column("cached", Boolean, nullable=False, default=False),
    Column("latency_s", Float),
    Column("cost_usd", Float),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("project", "task_id", "model_version", "member_id", name="uq_audit_members_key"),
)

crowd_labels = Table(
    "audit_crowd_labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("annotation_id", String(KEY), nullable=False),
    Column("annotator", String(KEY)),
    Column("label", String(KEY)),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("project", "task_id", "annotation_id", name="uq_audit_crowd_key"),
)

jobs = Table(
    "audit_jobs",
    metadata,
    Column("job_key", String(KEY), primary_key=True),
    Column("project", String(KEY), nullable=False, index=True),
    Column("model_version", String(KEY), nullable=False),
    Column("n_tasks", Integer, nullable=False, default=0),
    Column("status", String(32), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("n_scored", Integer, nullable=False, default=0),
    Column("n_errors", Integer, nullable=False, default=0),
    Column("error", Text),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

projects = Table(
    "audit_projects",
    metadata,
    Column("project", String(KEY), primary_key=True),
    Column("label_config", Text),
    Column("label_field", String(KEY)),
    Column("control", String(KEY)),  # the audited control(s) when named (LABEL_AUDIT_CONTROL), else NULL
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

passes = Table(
    "audit_passes",  # what the audit's last pass decided (gate, reading chosen): backend.ledger.reread
    metadata,
    Column("project", String(KEY), primary_key=True),
    Column("model_version", String(KEY), primary_key=True),
    Column("blocks_json", Text, nullable=False),  # the summary's health_gate and prior_correction blocks
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
