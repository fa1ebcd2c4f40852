"""A member id qualified with a long control name fits the ledger's member key column (real PostgreSQL).

A control's verdict keeps its members under ``<member id>#<control>`` (:data:`backend.families.controls.MEMBER_SEP`):
a 225-character control name and a 70-character member id make 296 characters, wider than
``audit_members.member_id``. Before: PostgreSQL refused the row (``value too long for type character
varying(255)``) and the whole batch with it, the other items' verdicts included. SQLite does not enforce
the width, so the test runs where it matters.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.families.controls import MEMBER_SEP
from backend.ledger import Ledger, schema
from backend.scoring.results import ItemResult, MemberResult
from backend.sqlstore.key_fit import fit_key

JUDGE = "openai:" + "m" * 63  # 70 characters
CONTROL = "c" * 225


def _result(task: str, controls: tuple[str, ...]) -> ItemResult:
    members = tuple(MemberResult(member_id=f"{JUDGE}{MEMBER_SEP}{c}", probs={"1": 0.2, "2": 0.8}) for c in controls)
    return ItemResult(id=task, original="1", prediction="2", confidence=0.8, probs={"2": 0.8}, flagged=True,
                      members=members)


@pytest.mark.postgres
def test_long_qualified_member_ids_are_stored_and_the_batch_kept(postgres_url) -> None:
    ledger = Ledger(postgres_url)
    # two controls whose qualified ids differ only past the column's width: two rows, not one
    batch = [_result("1", ("plain",)), _result("2", (CONTROL, CONTROL[:-1] + "d"))]
    assert len(batch[1].members[0].member_id) == 296
    assert ledger.record_many("7", "v1", batch) == 2
    with ledger.db_engine.connect() as conn:
        keys = sorted(conn.execute(select(schema.members.c.member_id)).scalars())
    assert len(keys) == 3 and len(set(keys)) == 3 and max(map(len, keys)) == STORE_COLUMN_CHARS
    assert f"{JUDGE}{MEMBER_SEP}plain" in keys
    # the full ids are what every reader sees
    stored = ledger.results_for("7", ["2"], "v1")["2"]
    assert [m.member_id for m in stored.members] == [m.member_id for m in batch[1].members]
    ledger.record_many("7", "v1", batch[1:])  # a re-run writes over the same rows
    with ledger.db_engine.connect() as conn:
        assert len(conn.execute(select(schema.members.c.id)).all()) == 3


def test_a_key_that_fits_is_kept_as_it_is() -> None:
    assert fit_key("a" * STORE_COLUMN_CHARS) == "a" * STORE_COLUMN_CHARS
    long = fit_key("a" * 300)
    assert len(long) == STORE_COLUMN_CHARS and long.startswith("a" * 200) and fit_key("a" * 300) == long
    assert fit_key("a" * 300) != fit_key("a" * 301)
