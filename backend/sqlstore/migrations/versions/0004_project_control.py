"""audit_projects.control: the control(s) a project was audited on (``LABEL_AUDIT_CONTROL``), beside its config.

A label config with several controls is audited one named control at a time (or a chosen few); the spec
the review, ``audit-stats report`` and ``sync-gold`` derive from the stored config must be that same
control's, or they refuse the config ("several controls: name the one to audit"). NULL: no control was
named (a project with one control, and every project stored before this revision), which derives the
spec exactly as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_project_control"
down_revision = "0003_review_instances"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("audit_projects") as batch:
        batch.add_column(sa.Column("control", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("audit_projects") as batch:
        batch.drop_column("control")
