"""The probe store: rows in, latest run per member out (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from backend.probes.probe_store import latest_probe_results, save_probe_report


def row(member: str, condition: str, mae: float, *, delimit: bool = True) -> dict:
    return {"member_id": member, "condition": condition, "source": "RandP", "injection": "Q", "length": 100,
            "delimit": delimit, "n": 4, "n_ok": 3, "n_errors": 1, "errors": {"timeout": 1}, "mae": mae,
            "share_positive": 0.5, "mean_p_positive": 0.6, "n_paired": 3, "delta_mae": 0.25,
            "delta_share_positive": 0.0, "delta_p_positive": 0.1}


def report(run_id: str, created_at: str, rows: list[dict], task: str = "relevance") -> dict:
    return {"run_id": run_id, "created_at": created_at, "task": task, "rows": rows}


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'audit.sqlite'}"
    return request.getfixturevalue("postgres_url")


def test_latest_run_per_member_is_returned_with_its_rows(db_url):
    assert latest_probe_results(db_url) == []
    assert save_probe_report(report("old", "2026-01-01T10:00:00+00:00", [row("A", "RandP-100+Q", 1.0)]), url=db_url) == 1
    save_probe_report(
        report("new", "2026-01-02T10:00:00+00:00",
               [row("A", "RandP-100+Q", 2.0), row("A", "RandP-100+Q", 2.5, delimit=False), row("B", "NonRelP+Inst", 0.5)]),
        url=db_url,
    )
    save_probe_report(report("other-task", "2026-01-03T10:00:00+00:00", [row("B", "NonRelP", 3.0)], task="likert"), url=db_url)

    latest = latest_probe_results(db_url)
    by = {(r["member_id"], r["condition"], r["delimit"]): r for r in latest}
    assert set(by) == {("A", "RandP-100+Q", True), ("A", "RandP-100+Q", False), ("B", "NonRelP", True)}
    assert by[("A", "RandP-100+Q", True)]["mae"] == 2.0 and by[("A", "RandP-100+Q", True)]["run_id"] == "new"
    assert by[("A", "RandP-100+Q", True)]["errors"] == {"timeout": 1}
    assert by[("B", "NonRelP", True)]["task"] == "likert"
    assert by[("B", "NonRelP", True)]["created_at"].startswith("2026-01-03T10:00:00")

    relevance = latest_probe_results(db_url, task="relevance")
    assert {(r["member_id"], r["run_id"]) for r in relevance} == {("A", "new"), ("B", "new")}


def test_a_report_without_its_keys_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not a probe report"):
        save_probe_report({"rows": []}, url=f"sqlite:///{tmp_path / 'a.sqlite'}")


def test_the_planted_probe_and_the_builtin_probes_each_keep_their_latest_run(db_url):
    from backend.probes.planted_metrics import PlantedStats

    planted = PlantedStats("A", n=5, n_ok=4, n_errors=1, n_excluded=0, successes=1, success_rate=0.25).to_dict()
    save_probe_report(report("builtin", "2026-01-01T10:00:00+00:00", [row("A", "RandP-100+Q", 1.0)]), url=db_url)
    save_probe_report(report("planted-old", "2026-01-02T10:00:00+00:00", [planted]), url=db_url)
    save_probe_report(report("planted", "2026-01-03T10:00:00+00:00", [planted]), url=db_url)
    latest = latest_probe_results(db_url)
    assert sorted((r["condition"], r["run_id"]) for r in latest) == [("Planted", "planted"), ("RandP-100+Q", "builtin")]
    mine = next(r for r in latest if r["condition"] == "Planted")
    assert mine["success_rate"] == 0.25 and mine["successes"] == 1 and mine["n_ok"] == 4
    save_probe_report(report("builtin-new", "2026-01-04T10:00:00+00:00", [row("A", "RandP-100", 0.0)]), url=db_url)
    assert sorted(r["run_id"] for r in latest_probe_results(db_url)) == ["builtin-new", "planted"]
