"""The ledger on real SQLite and real PostgreSQL: idempotent upserts, ordering, crowd labels, jobs."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from backend.ledger import CrowdLabel, Ledger, schema
from backend.scoring.results import ErrorInfo, ItemResult, MemberResult


def _result(task_id: str, *, conf: float, flagged: bool, members: int = 2, error: ErrorInfo | None = None) -> ItemResult:
    probs = {"0": round(1 - conf, 6), "1": conf}
    return ItemResult(
        id=task_id,
        original="0",
        prediction=None if error else "1",
        confidence=None if error else conf,
        probs=None if error else probs,
        flagged=flagged,
        members=tuple(
            MemberResult(f"local:smollm2/p{i}", probs=probs, method="logits", latency_s=0.01 * i)
            for i in range(members)
        ),
        error=error,
        data={"grounding": f"doc {task_id}", "generated_text": "claim"},
    )


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request, tmp_path) -> Ledger:
    if request.param == "sqlite":
        return Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    return Ledger(request.getfixturevalue("postgres_url"))


def _count(ledger: Ledger, table) -> int:
    with ledger.db_engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_record_round_trips_every_member(ledger):
    res = _result("11", conf=0.8, flagged=True, members=3)
    ledger.record("5", "v1", res)
    (back,) = ledger.results("5", model_version="v1")
    assert back == res
    assert _count(ledger, schema.members) == 3


def test_rerun_overwrites_instead_of_duplicating(ledger):
    ledger.record("5", "v1", _result("1", conf=0.6, flagged=False, members=3))
    ledger.record("5", "v1", _result("1", conf=0.9, flagged=True, members=2))
    ledger.record_many("5", "v1", [_result("1", conf=0.95, flagged=True, members=2)] * 2)
    (back,) = ledger.results("5")
    assert back.confidence == 0.95
    assert _count(ledger, schema.results) == 1
    assert _count(ledger, schema.members) == 2  # the stale third member went away


def test_versions_and_projects_are_separate_keys(ledger):
    ledger.record("5", "v1", _result("1", conf=0.6, flagged=False))
    ledger.record("5", "v2", _result("1", conf=0.7, flagged=False))
    ledger.record("6", "v2", _result("1", conf=0.8, flagged=False))
    assert ledger.results("5", model_version="v1")[0].confidence == 0.6
    assert ledger.latest_version("5") == "v2"
    assert ledger.results("5")[0].confidence == 0.7
    assert ledger.results("nope") == []
    assert ledger.pending("5", ["1", "2", "3"], "v1") == ["2", "3"]
    assert ledger.pending("6", ["1"], "v1") == ["1"]


def test_flagged_highest_confidence_first_with_threshold(ledger):
    for task_id, conf, flag in [("a", 0.7, True), ("b", 0.99, True), ("c", 0.9, False), ("d", 0.8, True)]:
        ledger.record("5", "v1", _result(task_id, conf=conf, flagged=flag))
    assert [r.id for r in ledger.flagged("5")] == ["b", "d", "a"]
    assert [r.id for r in ledger.flagged("5", threshold=0.8)] == ["b", "d"]
    assert ledger.count("5", "v1") == {"scored": 4, "errors": 0, "flagged": 3}


def test_errors_are_recorded_and_counted(ledger):
    ledger.record("5", "v1", _result("bad", conf=0.0, flagged=False, members=0, error=ErrorInfo("malformed_task", False, "no data")))
    ledger.record("5", "v1", _result("ok", conf=0.9, flagged=False))
    assert ledger.count("5", "v1")["errors"] == 1
    assert ledger.pending("5", ["bad", "ok"], "v1") == []  # an error is a final verdict, not a retry loop


def test_crowd_labels_keep_every_annotation(ledger):
    labels = [CrowdLabel("1", "a1", "0", "u1"), CrowdLabel("1", "a2", "1", "u2"), CrowdLabel("2", "a3", "1", None)]
    ledger.record_crowd("5", labels)
    ledger.record_crowd("5", labels[:1])
    crowd = ledger.crowd_labels("5")
    assert [c.label for c in crowd["1"]] == ["0", "1"]
    assert crowd["2"] == [labels[2]]


def test_job_log_counts_attempts(ledger):
    ledger.jobs.queued("k1", project="5", model_version="v1", n_tasks=3)
    assert ledger.jobs.started("k1", project="5", model_version="v1", n_tasks=3) == 1
    assert ledger.jobs.started("k1", project="5", model_version="v1", n_tasks=3) == 2
    ledger.jobs.finish("k1", status="finished", n_scored=3, n_errors=1)
    job = ledger.jobs.get("k1")
    assert (job.status, job.attempts, job.n_scored, job.n_errors) == ("finished", 2, 3, 1)
    with pytest.raises(ValueError):
        ledger.jobs.finish("k1", status="exploded")


def test_project_settings(ledger):
    assert ledger.project("5") is None
    ledger.set_project("5", label_config="<View/>", label_field=None)
    ledger.set_project("5", label_config="<View></View>", label_field="label")
    assert ledger.project("5") == {"label_config": "<View></View>", "label_field": "label", "control": None}
    ledger.set_project("5", label_config="<View></View>", label_field="label", control="topic")
    assert ledger.project("5")["control"] == "topic"  # the control an audit was narrowed to


def test_concurrent_writers_leave_one_row(ledger):
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for _ in range(5):
                ledger.record("5", "v1", _result("1", conf=0.9, flagged=True))
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _count(ledger, schema.results) == 1
    assert _count(ledger, schema.members) == 2


def test_constructor_validates():
    with pytest.raises(ValueError):
        Ledger("sqlite:///:memory:", db_engine=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Ledger("sqlite:///:memory:").record("", "v1", _result("1", conf=0.9, flagged=True))


def test_import_bookkeeping(ledger):
    ledger.record_many("5", "v1", [_result("1", conf=0.9, flagged=True), _result("2", conf=0.6, flagged=False),
                                    _result("3", conf=0.0, flagged=False, error=ErrorInfo("malformed_task", False, "x"))])
    assert [r.id for r in ledger.unimported("5", "v1")] == ["1", "2"]
    ledger.mark_imported("5", "v1", ["1"])
    ledger.record("5", "v1", _result("1", conf=0.95, flagged=True))  # a re-run keeps the import mark
    assert [r.id for r in ledger.unimported("5", "v1")] == ["2"]
