"""Alembic environment of label-audit's store: runs on the connection :mod:`backend.sqlstore.tables` passes in."""

from __future__ import annotations

from alembic import context

from backend.sqlstore.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
