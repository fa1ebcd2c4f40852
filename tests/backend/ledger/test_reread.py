"""The ledger keeps the project pass's verdict and the workers' own beside it (SQLite and real PostgreSQL).

Written over a row, a re-read verdict is what every reader of the ledger sees (``flagged``, ``count``,
``results_for``); ``iter_scored`` gives back the row as the workers stored it, exactly, and writing a verdict equal
to the scored one makes the row the workers' again. Member rows (the judges' own answers) are never touched.
"""

from __future__ import annotations

import pytest

from backend.ledger import Ledger
from backend.ledger.reread import (AS_SCORED, iter_scored, pass_blocks, read_with_scored_flags, record_pass,
                                   record_reread, same_verdict)
from backend.scoring.results import ItemResult, MemberResult


def _scored(task: str, *, flagged: bool, confidence: float) -> ItemResult:
    probs = {"a": confidence, "b": round(1 - confidence, 6)}
    members = (MemberResult("local:m/p@v1", probs=probs, raw_mass=0.9),
               MemberResult("local:m/q@v1", probs={"a": 0.5, "b": 0.5}, raw_mass=0.8))
    return ItemResult(id=task, original="b", prediction="a", confidence=confidence, probs=probs, flagged=flagged,
                      members=members, data={"text": f"item {task}"}, input_hash=f"h{task}")


def _reread(res: ItemResult) -> ItemResult:
    """A pass that reads the other verdict, with members it corrected (which the ledger must not keep)."""
    corrected = tuple(MemberResult(m.member_id, probs={"a": 0.1, "b": 0.9}, raw_mass=m.raw_mass) for m in res.members)
    return ItemResult(id=res.id, original=res.original, prediction="b", confidence=0.9, probs={"a": 0.1, "b": 0.9},
                      flagged=False, members=corrected, data=res.data, input_hash=res.input_hash)


def _check(ledger: Ledger) -> None:
    stored = [_scored("1", flagged=True, confidence=0.95), _scored("2", flagged=True, confidence=0.9),
              _scored("3", flagged=False, confidence=0.6)]
    ledger.record_many("7", "v1", stored)
    ledger.mark_imported("7", "v1", ["1", "2", "3"])
    assert [r.id for r in ledger.flagged("7", model_version="v1")] == ["1", "2"]

    assert record_reread(ledger, "7", "v1", [(stored[0], _reread(stored[0]))]) == 1
    held = {r.id: r for r in ledger.iter_results("7", "v1")}
    assert (held["1"].prediction, held["1"].confidence, held["1"].flagged) == ("b", 0.9, False)
    assert held["1"].members == stored[0].members  # the judges' own answers, not the pass's corrected rows
    assert (held["1"].data, held["1"].input_hash) == (stored[0].data, stored[0].input_hash)
    assert held["2"] == stored[1] and held["3"] == stored[2]
    assert [r.id for r in ledger.flagged("7", model_version="v1")] == ["2"]
    assert ledger.count("7", "v1")["flagged"] == 1
    assert ledger.results_for("7", ["1"], "v1", input_hashes={"1": "h1"})["1"].prediction == "b"
    assert ledger.unimported("7", "v1") == []  # the import bookkeeping is left as it was
    assert AS_SCORED in next(ledger.iter_payloads("7", "v1"))

    assert list(iter_scored(ledger, "7", "v1")) == [(stored[0], True), (stored[1], False), (stored[2], False)]
    assert read_with_scored_flags(ledger, "7", "v1", page=2) == (list(ledger.iter_results("7", "v1")),
                                                                 frozenset({"1", "2"}))
    assert record_reread(ledger, "7", "v1", [(stored[0], stored[0])]) == 1  # the same verdict: the row is undone
    assert list(iter_scored(ledger, "7", "v1")) == [(r, False) for r in stored]
    assert list(ledger.iter_results("7", "v1")) == stored
    assert read_with_scored_flags(ledger, "7", "v1") == (stored, None)  # no row re-read: nothing to compare
    assert AS_SCORED not in next(ledger.iter_payloads("7", "v1"))
    assert record_reread(ledger, "7", "v1", []) == 0

    assert pass_blocks(ledger, "7", "v1") is None  # no pass recorded
    first = {"health_gate": {"left_out": [{"member": "local:m/q@v1", "reason": "collapsed"}]},
             "prior_correction": {"mode": "auto", "chosen": "given",
                                  "agreement": {"none": {"agree": 23, "of": 32}, "given": {"agree": 25, "of": 32}}}}
    record_pass(ledger, "7", "v1", first)
    assert pass_blocks(ledger, "7", "v1") == first and pass_blocks(ledger, "7", "v2") is None
    record_pass(ledger, "7", "v1", {"health_gate": {"left_out": []}, "prior_correction": {"mode": "none"}})
    assert pass_blocks(ledger, "7", "v1")["prior_correction"] == {"mode": "none"}  # the next pass writes over it


def test_a_reread_verdict_is_read_everywhere_and_the_scored_one_comes_back(tmp_path) -> None:
    _check(Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}"))


@pytest.mark.postgres
def test_a_reread_verdict_round_trips_on_postgresql(postgres_url) -> None:
    _check(Ledger(postgres_url))


def test_same_verdict_reads_every_field_the_pass_may_change() -> None:
    base = _scored("1", flagged=True, confidence=0.95)
    assert same_verdict(base, base)
    from dataclasses import replace

    for change in ({"prediction": "b"}, {"confidence": 0.5}, {"probs": {"a": 0.5, "b": 0.5}}, {"flagged": False},
                   {"insufficient": True}):
        assert not same_verdict(base, replace(base, **change)), change
    assert same_verdict(base, replace(base, members=(), data={"other": 1}))  # not part of the verdict
