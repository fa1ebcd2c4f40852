"""review_projects.ambiguous_choice: the project offers "More than one answer may be right".

``review push --ambiguous-choice`` adds that choice to every expert's project; the review remembers it so
the reconciliation project of round 2 offers it too and a later push gives a new expert the same choices.
NULL (every project made before this revision): not offered.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_review_ambiguous_choice"
down_revision = "0004_project_control"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("review_projects") as batch:
        batch.add_column(sa.Column("ambiguous_choice", sa.Boolean, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("review_projects") as batch:
        batch.drop_column("ambiguous_choice")
