"""Review projects remember their Label Studio instance; answers that were not counted are kept apart.

``review_projects.instance``: the expert's own instance URL (NULL: the shared review instance), since
fresh instances all number their first project 1. ``review_ignored_answers``: annotations found in a
review project but not by its expert, reported and never counted. (The experts change first added the
column by hand at start-up; a store it already altered keeps its column.)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_review_instances"
down_revision = "0002_input_hash"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "instance" not in {c["name"] for c in inspector.get_columns("review_projects")}:
        with op.batch_alter_table("review_projects") as batch:
            batch.add_column(sa.Column("instance", sa.String(1024), nullable=True))
    if not inspector.has_table("review_ignored_answers"):
        op.create_table(
            "review_ignored_answers",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("source_project", sa.String(255), nullable=False, index=True),
            sa.Column("round", sa.Integer, nullable=False),
            sa.Column("expert", sa.String(255), nullable=False),
            sa.Column("task_id", sa.String(255), nullable=False),
            sa.Column("annotator", sa.String(255), nullable=False),
            sa.Column("annotation_id", sa.Integer, nullable=False),
            sa.Column("ls_project_id", sa.Integer, nullable=False),
            sa.Column("instance", sa.String(1024)),
            sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("review_ignored_answers")
    with op.batch_alter_table("review_projects") as batch:
        batch.drop_column("instance")
