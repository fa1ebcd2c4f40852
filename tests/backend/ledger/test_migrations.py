"""A store made by the previous release (b50f3f5) upgrades in place on SQLite and PostgreSQL.

The fixtures are dumps of databases that release's own code wrote (tests/data/old_release/make_fixture.py
says how they were made); the test loads them with the real clients (sqlite3, psql) and opens them
with this release's stores.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from backend.scoring.cache import CallCache
from backend.sqlstore.tables import current_revision, head_revision
from backend.ledger import Ledger
from backend.probes.probe_store import latest_probe_results
from backend.review.review_store import ReviewStore

REPO = Path(__file__).resolve().parents[3]
OLD = REPO / "tests" / "data" / "old_release"
VERSION = "label-audit-oldrelease1"


def _check_upgraded(url: str) -> None:
    ledger = Ledger(url)  # opening it upgrades it
    with ledger.db_engine.connect() as conn:
        assert current_revision(conn) == head_revision()
        hashes = dict(conn.execute(text("SELECT task_id, input_hash FROM audit_results")).all())
    assert hashes == {"1": "hash0000000000000001", "2": "hash0000000000000002", "3": None}
    # the verdicts the old release stored are served for unchanged inputs; the one without a hash is re-scored
    current = {"1": "hash0000000000000001", "2": "hash0000000000000002", "3": "hash0000000000000003"}
    assert ledger.pending("7", ["1", "2", "3"], VERSION, input_hashes=current) == ["3"]
    assert ledger.results_for("7", ["1"], VERSION)["1"].confidence == 0.8
    assert len(ledger.crowd_labels("7")["1"]) == 1 and ledger.jobs.get("la-7-old").status == "finished"
    assert ledger.project("7")["label_config"].startswith("<View>")
    assert ledger.project("7")["control"] is None  # stored before controls were: the spec derives as before
    assert CallCache(url).get("k" * 64).probs == {"0": 0.2, "1": 0.8}
    assert [r["condition"] for r in latest_probe_results(db_engine=ledger.db_engine)] == ["planted"]
    assert [(g.task_id, g.gold) for g in ReviewStore(db_engine=ledger.db_engine).gold_labels("7")] == [("1", "1")]
    Ledger(url)  # a second start finds it current and changes nothing
    _same_as_code(ledger.db_engine)


def _same_as_code(db_engine) -> None:
    """The migrated database has exactly the tables and columns the code defines (Alembic's own diff):
    a schema change made by hand at start-up, not as a revision, fails here."""
    import backend.scoring.cache  # noqa: F401  (every context registers its tables on the one MetaData)
    import backend.probes.probe_store  # noqa: F401
    import backend.review.sample_store  # noqa: F401
    import backend.review.schema  # noqa: F401
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from backend.sqlstore.tables import metadata

    with db_engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []


def test_previous_release_sqlite_store_upgrades(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript((OLD / "ledger-b50f3f5.sqlite.sql").read_text())
    assert "alembic_version" not in {r[0] for r in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master WHERE type='table'")}
    _check_upgraded(f"sqlite:///{path}")


def test_previous_release_postgresql_store_upgrades(postgres_url) -> None:
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", postgres_url, "-f",
                    str(OLD / "ledger-b50f3f5.postgresql.sql")], check=True, capture_output=True)
    _check_upgraded(postgres_url)


OPEN = "import sys; from backend.ledger import Ledger; Ledger(sys.argv[1])"


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_processes_opening_a_new_store_at_once_all_succeed(dialect, tmp_path, request) -> None:
    url = f"sqlite:///{tmp_path / 'new.sqlite'}" if dialect == "sqlite" else request.getfixturevalue("postgres_url")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", OPEN, url], env=env, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]  # like a backend and three workers started together
    failures = [p.stderr.read()[-500:] for p in procs if p.wait(timeout=120) != 0]
    # before: "table ... already exists" for the processes that lost the create_all race
    assert failures == []
    with Ledger(url).db_engine.connect() as conn:
        assert current_revision(conn) == head_revision()
