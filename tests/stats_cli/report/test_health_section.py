"""The report's member health section: the figures against hand counts, PENDING below the minimum, JSON and HTML."""

from __future__ import annotations

import dataclasses
import json

import pytest

from backend.scoring.results import MemberResult
from stats_cli.report.build import build_report
from stats_cli.report.html import render_html
from stats_cli.report.model import Status
from tests.stats_cli.report.builders import planted_audit

STUCK = "local:c/stuck@v1"


def _audit(n: int = 40, *, mass: float = 0.05):
    """The planted audit plus a member that answers "1" for every item with little mass on the labels."""
    data, _ = planted_audit(n=n)
    items = tuple(dataclasses.replace(it, members=(*it.members, MemberResult(STUCK, probs={"0": 0.2, "1": 0.8},
                                                                             raw_mass=mass)))
                  for it in data.items)
    return dataclasses.replace(data, items=items)


def test_a_collapsed_low_mass_member_is_named_with_its_figures():
    data = _audit()
    sec = build_report(data).section("member_health")
    assert sec.status is Status.OK
    rows = {r["member"]: r for r in sec.values["members"]}
    stuck = rows[STUCK]
    ones = sum(it.original == "1" for it in data.items)
    assert (stuck["n"], stuck["answer"], stuck["answer_share"]) == (40, "1", 1.0)
    assert stuck["original_share"] == pytest.approx(ones / 40) and stuck["mass"] == pytest.approx(0.05)
    expected_collapse = ones / 40 <= sec.values["rule"]["spread_share"]
    assert stuck["collapsed"] is expected_collapse and stuck["low_mass"] is True and stuck["named"]
    assert STUCK in sec.values["named"] and any(STUCK in note and "--exclude-member" in note for note in sec.notes)
    table = sec.tables[0]
    row = next(r for r in table.rows if r[0] == STUCK)
    assert row[1] == 40 and row[3] == pytest.approx(100.0) and row[-1] == stuck["status"]


def test_under_the_minimum_every_member_is_pending_and_says_so():
    sec = build_report(_audit(n=12)).section("member_health")
    assert all(r["status"] == "PENDING" and r["collapsed"] is None for r in sec.values["members"])
    assert any("PENDING" in note and "fewer than 20 answers" in note for note in sec.notes)


def test_json_and_html_carry_the_section():
    report = build_report(_audit())
    as_json = json.loads(json.dumps(report.to_json()))
    (sec,) = [s for s in as_json["sections"] if s["key"] == "member_health"]
    assert STUCK in sec["values"]["named"] and sec["tables"][0]["columns"][0] == "member"
    html = render_html(report)
    assert "Member health" in html and STUCK in html


def test_the_health_gate_names_the_member_it_leaves_out_and_the_flags_it_takes_back():
    from backend.scoring.ensemble import VerdictRule, model_of, verdict

    data = _audit(mass=0.9)
    rows = {r["member"]: r for r in build_report(data).section("member_health").values["members"]}
    if not rows[STUCK]["collapsed"]:
        pytest.skip("the planted audit's originals are not spread enough for the rule")  # pragma: no cover
    rule = VerdictRule(data.spec, threshold=data.threshold)
    scored = []  # the stored verdicts as a worker wrote them: every member averaged, the stuck one included
    for it in data.items:
        answered = [m for m in it.members if m.probs is not None]
        d = verdict([m.probs for m in answered], [model_of(m.member_id) for m in answered], it.original, rule)
        scored.append(dataclasses.replace(it, prediction=d.prediction, confidence=d.confidence, probs=d.probs,
                                          flagged=d.flagged))
    data = dataclasses.replace(data, items=tuple(scored))
    sec = build_report(data).section("member_health")
    gate = sec.values["health_gate"]
    assert [x["member"] for x in gate["left_out"]] == [STUCK] and "COLLAPSED" in gate["left_out"][0]["reason"]
    taken_back = 0
    for it in data.items:
        kept = [m for m in it.members if m.probs is not None and m.member_id != STUCK]
        d = verdict([m.probs for m in kept], [model_of(m.member_id) for m in kept], it.original, rule)
        taken_back += bool(it.flagged and not d.flagged)
    assert gate["flags_taken_back"] == taken_back
    assert any(STUCK in note and "health gate" in note for note in sec.notes)
    assert any(f"takes back {taken_back} of {sum(it.flagged for it in data.items)} stored flags" in note
               for note in sec.notes)


def test_after_the_audits_last_pass_the_section_counts_what_it_took_back_and_added():
    """The ledger holds the last pass's verdicts: regating them again would count nothing (or undo a correction), so
    the section compares them with the flags the workers stored."""
    data = _audit(mass=0.9)
    flagged = sorted(str(it.id) for it in data.items if it.flagged)
    unflagged = sorted(str(it.id) for it in data.items if not it.flagged)
    assert len(flagged) >= 2 and len(unflagged) >= 3
    scored = frozenset(flagged[1:] + unflagged[:3])  # the workers flagged 3 the pass took back, missed 1 it added
    sec = build_report(dataclasses.replace(data, scored_flags=scored)).section("member_health")
    gate = sec.values["health_gate"]
    assert (gate["flags_taken_back"], gate["flags_added"]) == (3, 1)
    assert any(f"of the {len(scored)} flags the workers stored it took back 3 and added 1" in note
               for note in sec.notes)


def test_the_section_says_which_reading_the_last_pass_chose_and_on_what():
    """The default correction (``auto``) chooses a reading per project: the report names it, with each candidate's
    agreement with the labels, from what the pass recorded — also when the pass changed no verdict."""
    data = _audit(mass=0.9)
    blocks = {"health_gate": {"left_out": []},
              "prior_correction": {"mode": "auto", "chosen": "given", "priors": {"m": {}},  # as stored: keys sorted
                                   "agreement": {"fitted": {"agree": 24, "of": 32}, "given": {"agree": 25, "of": 32},
                                                 "none": {"agree": 23, "of": 32}}}}
    sec = build_report(dataclasses.replace(data, last_pass=blocks)).section("member_health")
    flags = sum(bool(it.flagged) for it in data.items)
    assert any(f"last pass (the health gate, then the prior correction auto) re-read the stored verdicts: of the "
               f"{flags} flags the workers stored it took back 0 and added 0" in note for note in sec.notes)
    assert any("Prior correction auto: chose given" in note and "the judges' average 23 of 32, given 25 of 32, "
               "fitted 24 of 32" in note for note in sec.notes)
    assert sec.values["health_gate"]["last_pass"] == blocks
    plain = build_report(data).section("member_health")  # no pass recorded, none re-read: no such note
    assert not any("last pass" in note or "Prior correction" in note for note in plain.notes)
