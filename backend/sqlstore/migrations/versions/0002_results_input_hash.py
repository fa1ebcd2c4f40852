"""audit_results.input_hash: the input hash a verdict is valid for, as a column (was only inside result_json).

``/predict`` and the workers compare it with the hash of a task's current inputs; as a column the
comparison needs no JSON decoding of every stored verdict. Existing rows are filled from their
``result_json``; a verdict stored without a hash keeps NULL, which matches no current input, so it is
re-scored by the ordinary comparison (no special case).
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002_input_hash"
down_revision = "0001_b50f3f5"
branch_labels = None
depends_on = None

BATCH = 1000


def upgrade() -> None:
    with op.batch_alter_table("audit_results") as batch:
        batch.add_column(sa.Column("input_hash", sa.String(64), nullable=True))
    bind = op.get_bind()
    table = sa.table("audit_results", sa.column("id", sa.Integer), sa.column("result_json", sa.Text),
                     sa.column("input_hash", sa.String))
    last = 0
    while True:
        rows = bind.execute(sa.select(table.c.id, table.c.result_json).where(table.c.id > last)
                            .order_by(table.c.id).limit(BATCH)).all()
        if not rows:
            break
        updates = [{"row_id": row_id, "hash": _hash_of(payload)} for row_id, payload in rows]
        updates = [u for u in updates if u["hash"] is not None]
        if updates:
            bind.execute(table.update().where(table.c.id == sa.bindparam("row_id"))
                         .values(input_hash=sa.bindparam("hash")), updates)
        last = rows[-1][0]


def _hash_of(payload: str | None) -> str | None:
    try:
        value = json.loads(payload or "{}").get("input_hash")
    except (ValueError, AttributeError):
        return None
    return str(value) if value else None


def downgrade() -> None:
    with op.batch_alter_table("audit_results") as batch:
        batch.drop_column("input_hash")
