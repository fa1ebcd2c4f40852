"""Baseline: the store as label-audit b50f3f5 (the previous release) created it, 14 tables in 5 groups.

A database made by that release has these tables (or some of them: each store created its own on
first use) and no ``alembic_version``; upgrading runs this revision first, which creates only the
tables that are missing, so an old ledger and a new, empty one arrive at the same schema. The table
definitions are frozen here, copied from that release: later schema changes are later revisions.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import (Boolean, Column, DateTime, Float, Index, Integer, MetaData, String, Table, Text,
                        UniqueConstraint, inspect)

revision = "0001_b50f3f5"
down_revision = None
branch_labels = None
depends_on = None


def baseline_tables() -> MetaData:
    """The previous release's tables, in their own MetaData."""
    md = MetaData()
    Table(
        "audit_results",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("model_version", String(255), nullable=False),
        Column("original", String(255)),
        Column("prediction", String(255)),
        Column("confidence", Float),
        Column("flagged", Boolean, nullable=False, default=False),
        Column("error", Text),
        Column("suspicious_text", Boolean, nullable=False, default=False),
        Column("result_json", Text, nullable=False),  # the full ItemResult.to_json()
        Column("updated_at", DateTime(timezone=True), nullable=False),
        Column("imported_at", DateTime(timezone=True)),  # when its prediction reached Label Studio
        UniqueConstraint("project", "task_id", "model_version", name="uq_audit_results_key"),
    )
    Table(
        "audit_members",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("model_version", String(255), nullable=False),
        Column("member_id", String(255), nullable=False),
        Column("probs_json", Text),
        Column("raw_mass", Float),
        Column("method", String(64)),
        Column("error", String(255)),
        Column("error_detail", Text),
        Column("cached", Boolean, nullable=False, default=False),
        Column("latency_s", Float),
        Column("cost_usd", Float),
        Column("updated_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("project", "task_id", "model_version", "member_id", name="uq_audit_members_key"),
    )
    Table(
        "audit_crowd_labels",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("annotation_id", String(255), nullable=False),
        Column("annotator", String(255)),
        Column("label", String(255)),
        Column("updated_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("project", "task_id", "annotation_id", name="uq_audit_crowd_key"),
    )
    Table(
        "audit_jobs",
        md,
        Column("job_key", String(255), primary_key=True),
        Column("project", String(255), nullable=False, index=True),
        Column("model_version", String(255), nullable=False),
        Column("n_tasks", Integer, nullable=False, default=0),
        Column("status", String(32), nullable=False),
        Column("attempts", Integer, nullable=False, default=0),
        Column("n_scored", Integer, nullable=False, default=0),
        Column("n_errors", Integer, nullable=False, default=0),
        Column("error", Text),
        Column("updated_at", DateTime(timezone=True), nullable=False),
    )
    Table(
        "audit_projects",
        md,
        Column("project", String(255), primary_key=True),
        Column("label_config", Text),
        Column("label_field", String(255)),
        Column("updated_at", DateTime(timezone=True), nullable=False),
    )
    Table(
        "review_projects",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("round", Integer, nullable=False),
        Column("expert", String(255), nullable=False),  # email; "" for the shared reconciliation project
        Column("expert_index", Integer),  # 0 -> "Expert A"
        Column("expert_user_id", Integer),
        Column("ls_project_id", Integer, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("source_project", "round", "expert", name="uq_review_projects_key"),
    )
    Table(
        "review_items",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("rank", Integer, nullable=False),  # push order: 0 = most confident suspect
        Column("original", String(255)),
        Column("prediction", String(255)),
        Column("confidence", Float),
        Column("model_version", String(255)),
        Column("pushed_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("source_project", "task_id", name="uq_review_items_key"),
    )
    Table(
        "review_assignments",
        md,
        Column("ref", String(64), primary_key=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("round", Integer, nullable=False),
        Column("expert", String(255), nullable=False),
        Column("ls_project_id", Integer, nullable=False, index=True),
        Column("ls_task_id", Integer),  # None until Label Studio confirmed the import
        Column("created_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("source_project", "task_id", "round", "expert", name="uq_review_assignments_key"),
    )
    Table(
        "review_answers",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("ref", String(64), nullable=False, index=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("round", Integer, nullable=False),
        Column("expert", String(255), nullable=False),  # email, or "user:<id>" for a non-expert annotator
        Column("annotation_id", Integer, nullable=False),
        Column("label", String(255)),  # None when the annotation chose no valid label
        Column("updated_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("ref", "annotation_id", name="uq_review_answers_key"),
    )
    Table(
        "review_gold_labels",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("original", String(255)),
        Column("prediction", String(255)),
        Column("confidence", Float),
        Column("gold", String(255)),  # None while pending/unresolved
        Column("decided_by", String(32)),  # original | experts_round1 | experts_round2
        Column("status", String(32), nullable=False),  # a GoldStatus value (older rows: final | pending | unresolved | not_scored)
        Column("updated_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("source_project", "task_id", name="uq_review_gold_key"),
    )
    Table(
        "review_sample_strata", md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("stratum", String(255), nullable=False),
        Column("design", String(32), nullable=False),
        Column("seed", Integer, nullable=False),
        Column("population", Integer, nullable=False),  # N_h when drawn
        Column("sample", Integer, nullable=False),  # n_h drawn
        Column("drawn_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("source_project", "stratum", name="uq_review_sample_strata"),
    )
    Table(
        "review_sample_items", md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("source_project", String(255), nullable=False, index=True),
        Column("task_id", String(255), nullable=False),
        Column("stratum", String(255), nullable=False),
        UniqueConstraint("source_project", "task_id", name="uq_review_sample_items"),
    )
    Table(
        "probe_results",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", String(32), nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        Column("task", String(128), nullable=False),
        Column("member_id", String(255), nullable=False),
        Column("condition", String(64), nullable=False),
        Column("delimit", Boolean, nullable=False),
        Column("n", Integer, nullable=False),
        Column("n_ok", Integer, nullable=False),
        Column("n_errors", Integer, nullable=False),
        Column("mae", Float),
        Column("share_positive", Float),
        Column("mean_p_positive", Float),
        Column("delta_mae", Float),
        Column("delta_share_positive", Float),
        Column("delta_p_positive", Float),
        Column("row_json", Text, nullable=False),
        Index("ix_probe_results_member_condition_time", "member_id", "condition", "created_at"),
    )
    Table(
        "llm_call_cache",
        md,
        Column("key", String(64), primary_key=True),
        Column("provider", String(64), nullable=False),
        Column("model", String(255), nullable=False),
        Column("template_id", String(128), nullable=False),
        Column("template_version", String(16), nullable=False),
        Column("distribution", Text, nullable=False),
        Column("latency_s", Float, nullable=True),
        Column("created_at", DateTime(timezone=True), nullable=False),
    )
    return md


def upgrade() -> None:
    bind = op.get_bind()
    present = set(inspect(bind).get_table_names())
    md = baseline_tables()
    md.create_all(bind, tables=[t for t in md.sorted_tables if t.name not in present])


def downgrade() -> None:
    raise NotImplementedError("the previous release has no migrations to go back to")
