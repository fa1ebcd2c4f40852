"""A store a newer release migrated, opened by this release (a rolling deploy), and the way back to 0003.

The newer release is this release's migrations plus one revision of its own, run by Alembic on a real
store (SQLite and PostgreSQL). Before: this release's ``ensure_schema`` asked Alembic to upgrade from a
revision it does not know, and every process failed on start (``Can't locate revision``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.newer_store import NewerStoreError
from backend.sqlstore.tables import MIGRATIONS, current_revision, downgrade, head_revision, upgrade

ADDITIVE = """
import sqlalchemy as sa
from alembic import op
revision = "0099_newer_release"
down_revision = {head!r}
def upgrade():
    with op.batch_alter_table("audit_results") as batch:
        batch.add_column(sa.Column("reviewed_by", sa.String(64), nullable=True))
    op.create_table("newer_things", sa.Column("id", sa.Integer, primary_key=True))
def downgrade():
    op.drop_table("newer_things")
    with op.batch_alter_table("audit_results") as batch:
        batch.drop_column("reviewed_by")
"""
BREAKING = """
import sqlalchemy as sa
from alembic import op
revision = "0099_newer_release"
down_revision = {head!r}
def upgrade():
    with op.batch_alter_table("audit_results") as batch:
        batch.drop_column("suspicious_text")
def downgrade():
    pass
"""


def _newer_release(tmp_path: Path, url: str, revision_source: str) -> None:
    """Migrate the store at ``url`` as a newer release would: this release's revisions plus one more."""
    from alembic import command
    from alembic.config import Config

    scripts = tmp_path / "newer-migrations"
    shutil.copytree(MIGRATIONS, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "0099_newer_release.py").write_text(revision_source.format(head=head_revision()))
    config = Config()
    config.set_main_option("script_location", str(scripts))
    db_engine = make_db_engine(url)
    with db_engine.connect() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
        conn.commit()
        assert current_revision(conn) == "0099_newer_release"
    db_engine.dispose()


def _url(dialect: str, tmp_path: Path, request) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite'}" if dialect == "sqlite" else request.getfixturevalue("postgres_url")


def _result(task: str) -> ItemResult:
    return ItemResult(id=task, original="a", prediction="b", confidence=0.9, probs={"b": 0.9, "a": 0.1},
                      flagged=True, input_hash=f"hash{task}")


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_this_release_uses_a_store_a_newer_release_only_added_to(dialect, tmp_path, request) -> None:
    url = _url(dialect, tmp_path, request)
    Ledger(url).record_many("7", "v1", [_result("1")])
    _newer_release(tmp_path, url, ADDITIVE)
    ledger = Ledger(url)  # before: alembic "Can't locate revision identified by '0099_newer_release'"
    ledger.record_many("7", "v1", [_result("2")])  # it still writes: the new column is nullable
    assert sorted(r.id for r in ledger.results("7")) == ["1", "2"]
    with ledger.db_engine.connect() as conn:
        assert current_revision(conn) == "0099_newer_release"  # left as the newer release made it


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_a_store_this_release_cannot_use_says_upgrade_the_workers_first(dialect, tmp_path, request) -> None:
    url = _url(dialect, tmp_path, request)
    Ledger(url)
    _newer_release(tmp_path, url, BREAKING)
    with pytest.raises(NewerStoreError, match=r"revision 0099_newer_release.*audit_results\.suspicious_text is "
                                              r"missing.*upgrade the workers first"):
        Ledger(url)


def _digests(url: str) -> dict[str, str]:
    """Each verdict row's digest over the columns revision 0003 has."""
    columns = ("project", "task_id", "model_version", "original", "prediction", "confidence", "flagged", "error",
               "result_json", "input_hash")
    db_engine = make_db_engine(url)
    with db_engine.connect() as conn:
        rows = conn.execute(text(f"SELECT {', '.join(columns)} FROM audit_results ORDER BY id")).all()
    db_engine.dispose()
    return {row[1]: hashlib.sha256(json.dumps([str(v) for v in row]).encode()).hexdigest() for row in rows}


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_downgrade_to_0003_keeps_every_verdict_and_upgrades_again(dialect, tmp_path, request) -> None:
    url = _url(dialect, tmp_path, request)
    ledger = Ledger(url)
    ledger.record_many("7", "v1", [_result("1"), _result("2")])
    ledger.set_project("7", label_config="<View/>", control="topic")
    before = _digests(url)
    ledger.db_engine.dispose()
    downgrade(make_db_engine(url), "0003_review_instances")
    with make_db_engine(url).connect() as conn:
        assert current_revision(conn) == "0003_review_instances"
    assert _digests(url) == before
    upgrade(make_db_engine(url))
    again = Ledger(url)
    assert _digests(url) == before and again.project("7")["control"] is None  # what 0004's downgrade lost
