"""audit_passes: what the audit's last pass decided over a project, kept for the report.

``label-audit audit`` re-reads every stored verdict once the workers are done (the health gate, then the prior
correction; by default ``auto``, which chooses a reading by its agreement with the project's labels) and writes the
verdicts it changed into ``audit_results``. The decision itself — which judges the gate left out and why, which
reading was chosen and each candidate's agreement — was printed once and lost; the report needs it to say what the
verdicts it reads rest on. One row per project and model version, written over by the next pass. Only adds a table:
a release before 0006 works on a store migrated to it (and its reports say only that a pass re-read the verdicts).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_audit_passes"
down_revision = "0005_review_ambiguous_choice"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit_passes",
        sa.Column("project", sa.String(255), primary_key=True),
        sa.Column("model_version", sa.String(255), primary_key=True),
        sa.Column("blocks_json", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("audit_passes")
