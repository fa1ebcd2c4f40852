"""The 'Which judges are worth it' section on planted answers, checked against sklearn and hand counts."""

from __future__ import annotations

import dataclasses

import pytest
from sklearn.metrics import cohen_kappa_score

from backend.costs.prices import Price, PriceTable
from stats_cli.report.build import build_report
from stats_cli.report.model import Status
from tests.stats_cli.report.builders import planted_audit

PRICES = PriceTable({("local", "a"): Price("local", "a", 1.0, 2.0), ("local", "b"): Price("local", "b", 10.0, 20.0)},
                    as_of="2026-12-01")
WRONG_B = {"t2", "t5"}  # model b's prompts contradict the truth here (both are reviewed flips)


def _audit(tokens: bool = True):
    data, truth = planted_audit()
    items = []
    for it in data.items:
        members = []
        for m in it.members:
            usage = {"prompt_tokens": 100, "completion_tokens": 1} if tokens else None
            probs = m.probs
            if m.member_id.startswith("local:b") and str(it.id) in WRONG_B:
                probs = {k: 1 - v for k, v in m.probs.items()}
            members.append(dataclasses.replace(m, usage=usage, probs=probs))
        items.append(dataclasses.replace(it, members=tuple(members)))
    return dataclasses.replace(data, items=tuple(items)), truth


def test_member_and_model_rows_match_independent_counts():
    data, truth = _audit()
    sec = build_report(data, prices=PRICES).section("judges")
    assert sec.status is Status.OK
    rows = {r["member"]: r for r in sec.values["members"]}
    reviewed = [str(it.id) for it, _ in data.reviewed()]
    for member, row in rows.items():
        wrong = WRONG_B if member.startswith("local:b") else set()
        right = sum((truth[i] == next(it.prediction for it in data.items if str(it.id) == i)) != (i in wrong)
                    for i in reviewed)
        assert (row["accuracy"], row["accuracy_n"]) == (pytest.approx(right / len(reviewed)), len(reviewed))
        per_call = (100 * (1.0 if member.startswith("local:a") else 10.0) + 1 * (2.0 if member.startswith("local:a") else 20.0)) / 1e6
        assert row["cost_per_10k"] == pytest.approx(per_call * 10_000)
    # κ of a/p1 with the others: the mean of sklearn's pairwise Cohen κ
    labels = {m: [max(x.probs, key=x.probs.get) for it in data.items for x in it.members if x.member_id == m]
              for m in rows}
    expected = [cohen_kappa_score(labels["local:a/p1"], labels[o]) for o in rows if o != "local:a/p1"]
    assert rows["local:a/p1"]["kappa"] == pytest.approx(sum(expected) / len(expected))
    models = {m["model"]: m for m in sec.values["models"]}
    assert models["local:b"]["accuracy"] < models["local:a"]["accuracy"]
    assert models["local:a"]["prompts"] == 2


def test_cheapest_sub_ensemble_within_the_margin_is_marked():
    data, _ = _audit()
    sec = build_report(data, prices=PRICES).section("judges")
    sub = sec.tables[2]
    marked = [row for row in sub.rows if row[-1] == "◀"]
    assert len(marked) == 1 and marked[0][0] == "local:a"  # cheaper and as good as the full ensemble
    assert any("Cheapest sub-ensemble" in n and "local:a" in n for n in sec.notes)
    assert len(sec.figures) == 1 and {s.name for s in sec.figures[0].series} == {"local:a", "local:b"}


def test_without_prices_or_reviews_the_section_says_pending():
    data, _ = _audit(tokens=False)
    sec = build_report(data).section("judges")
    assert any("cost: PENDING" in n for n in sec.notes)
    assert any("sub-ensemble: PENDING" in n for n in sec.notes)
    assert all(r["cost_per_10k"] is None for r in sec.values["members"])
    assert any("gullibility and steering: PENDING" in n for n in sec.notes)
    bare = dataclasses.replace(data, reviews={}, routed=frozenset())
    assert any("accuracy: PENDING" in n for n in build_report(bare).section("judges").notes)


def test_a_planted_probe_alone_fills_the_steering_column_and_says_why_mae_is_missing():
    from stats_cli.sources.audit_data import ProbeRow

    data, _ = _audit()
    members = sorted({m.member_id for it in data.items for m in it.members})
    probes = tuple(ProbeRow(member, "Planted", 10, None, success_rate=k / 10, ci=(0.0, 1.0), successes=k)
                   for k, member in enumerate(members))
    sec = build_report(dataclasses.replace(data, probes=probes), prices=PRICES).section("judges")
    rows = {r["member"]: r for r in sec.values["members"]}
    assert [rows[m]["steered"] for m in members] == [k / 10 for k in range(len(members))]
    assert [rows[m]["steered_n"] for m in members] == [10] * len(members)  # the items each rate rests on
    assert all(r["gullibility"] is None for r in rows.values())
    assert any("gullibility (probe MAE): NOT APPLICABLE (only the planted-instruction probe" in n for n in sec.notes)
    models = {m["model"]: m for m in sec.values["models"]}
    a = [rows[m]["steered"] for m in members if m.startswith("local:a")]
    assert models["local:a"]["steered"] == pytest.approx(sum(a) / len(a))
