"""Member health: the rule on result streams, PENDING below the minimum, question rows pooled per member.

The in-process tests feed result records shaped as the engine writes them to the real tally; the ``llm``
test scores a file with the embedded model and checks that every figure of the summary's health block is
what the written results give (never what the tiny model should answer).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from backend.scoring.member_health import HealthRule, HealthTally, member_health
from backend.scoring.results import ItemResult, MemberResult

REPO = Path(__file__).resolve().parents[3]
LABELS = ("A", "B", "C")


def _item(n: int, original: str, answers: dict[str, str], *, mass: float = 0.9) -> ItemResult:
    members = tuple(MemberResult(member, probs={lab: (0.8 if lab == answer else 0.1) for lab in LABELS},
                                 raw_mass=mass) for member, answer in answers.items())
    return ItemResult(id=str(n), original=original, prediction=None, confidence=None, probs=None, flagged=False,
                      members=members)


def _spread(n: int) -> list[str]:
    return [LABELS[i % 3] for i in range(n)]  # originals a third each


def test_a_member_answering_one_label_while_originals_are_spread_is_collapsed():
    originals = _spread(30)
    results = [_item(i, o, {"p:m/stuck@v1": "B", "p:m/fine@v1": o}) for i, o in enumerate(originals)]
    rows = {r.member: r for r in member_health(results).members()}
    stuck, fine = rows["p:m/stuck@v1"], rows["p:m/fine@v1"]
    assert (stuck.n, stuck.answer, stuck.answer_share) == (30, "B", 1.0)
    assert stuck.original_share == pytest.approx(1 / 3) and stuck.original_modal_share == pytest.approx(1 / 3)
    assert stuck.collapsed is True and stuck.named and stuck.status == "COLLAPSED"
    assert fine.collapsed is False and fine.low_mass is False and not fine.named and fine.status == "ok"


def test_answering_the_majority_of_a_skewed_data_set_is_not_a_collapse():
    originals = ["A"] * 27 + ["B"] * 3  # A is 90 % of the originals
    rows = member_health([_item(i, o, {"p:m/t@v1": "A"}) for i, o in enumerate(originals)]).members()
    assert rows[0].answer_share == 1.0 and rows[0].original_share == pytest.approx(0.9)
    assert rows[0].collapsed is False


def test_a_minority_label_given_for_nearly_every_item_is_a_collapse_even_on_skewed_originals():
    originals = ["A"] * 27 + ["B"] * 3
    answers = ["B"] * 25 + ["A"] * 5
    rows = member_health([_item(i, o, {"p:m/t@v1": a}) for i, (o, a) in enumerate(zip(originals, answers))]).members()
    assert rows[0].answer == "B" and rows[0].answer_share == pytest.approx(25 / 30)
    assert rows[0].original_modal_share == pytest.approx(0.9) and rows[0].collapsed is True


def test_low_class_token_mass_is_named_with_its_mean_and_n():
    results = [_item(i, o, {"p:m/t@v1": o}, mass=0.1) for i, o in enumerate(_spread(24))]
    row = member_health(results).members()[0]
    assert row.mass == pytest.approx(0.1) and row.mass_n == 24
    assert row.low_mass is True and row.collapsed is False and row.status == "LOW MASS"


def test_below_the_minimum_every_verdict_is_pending_but_the_figures_are_kept():
    results = [_item(i, o, {"p:m/t@v1": "B"}, mass=0.1) for i, o in enumerate(_spread(19))]
    row = member_health(results).members()[0]
    assert row.n == 19 and row.answer_share == 1.0 and row.mass == pytest.approx(0.1)
    assert row.collapsed is None and row.low_mass is None and not row.named and row.status == "PENDING"
    assert member_health(results, rule=HealthRule(min_answers=19)).members()[0].status == "COLLAPSED, LOW MASS"


def test_items_without_an_original_count_for_mass_only():
    results = [_item(i, None, {"p:m/t@v1": "B"}) for i in range(25)]  # type: ignore[arg-type]
    row = member_health(results).members()[0]
    assert row.n == 0 and row.answer is None and row.collapsed is None
    assert row.mass_n == 25 and row.low_mass is False and row.status == "PENDING"


def test_question_rows_pool_into_their_member_each_against_its_questions_original():
    tally = HealthTally()
    for i in range(10):  # multi-label: Sports set on every other item, Politics never; the member says yes always
        questions = tuple(ItemResult(id=label, original=orig, prediction="yes", confidence=0.9,
                                     probs={"yes": 0.9, "no": 0.1}, flagged=False)
                          for label, orig in (("Sports", "yes" if i % 2 else "no"), ("Politics", "no")))
        members = tuple(MemberResult(f"p:m/t@v1#{label}", probs={"yes": 0.9, "no": 0.1}, raw_mass=0.5)
                        for label in ("Sports", "Politics"))
        tally.add(ItemResult(id=str(i), original="[]", prediction="[]", confidence=0.9, probs=None, flagged=True,
                             members=members, questions=questions))
    (row,) = tally.members()
    assert row.member == "p:m/t@v1" and row.n == 20 and row.answer == "yes" and row.answer_share == 1.0
    assert row.original_share == pytest.approx(5 / 20) and row.collapsed is True
    assert tally.to_dict()["named"] == ["p:m/t@v1"]


@pytest.mark.parametrize("kwargs", [{"min_answers": 0}, {"collapse_share": 1.5}, {"min_mass": -0.1},
                                    {"spread_share": 0.9, "collapse_share": 0.8}])
def test_the_rule_refuses_impossible_thresholds(kwargs):
    with pytest.raises(ValueError):
        HealthRule(**kwargs)


@pytest.mark.llm
def test_the_score_summary_names_members_by_the_figures_of_the_written_results(smollm2_path, tmp_path):
    questions = ["What is the capital of France?", "Who wrote Hamlet?", "How many legs does a spider have?",
                 "What does NASA stand for?", "Where is Mount Everest?", "Who painted the Mona Lisa?",
                 "How far is the Moon?", "What is a tulip?", "Who discovered penicillin?", "What does DNA mean?",
                 "Where is Kyoto?", "How old is the universe?"]
    labels = ["Location", "Person", "Number", "Abbreviation", "Location", "Person", "Number", "Entity", "Person",
              "Abbreviation", "Location", "Number"]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps({"id": f"q{i}", "text": q, "label": lab}) + "\n"
                                              for i, (q, lab) in enumerate(zip(questions * 2, labels * 2))))
    (tmp_path / "members.yaml").write_text("- provider: local\n  model: smollm2\n  prompts: [generic-question]\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "LABEL_AUDIT_HOME": str(tmp_path / ".label-audit")}
    proc = subprocess.run([sys.executable, "-m", "backend.cli", "score", "q.jsonl", "--labels",
                           "Location,Person,Number,Abbreviation,Entity", "--fields", "text", "--members",
                           "members.yaml", "--out", "out.jsonl", "--summary-json", "s.json", "--cache-url",
                           f"sqlite:///{tmp_path / 'c.sqlite'}"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    (row,) = summary["member_health"]["members"]
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    answers = [(max(r["members"][0]["probs"], key=r["members"][0]["probs"].get), r["original"]) for r in written]
    top, count = Counter(a for a, _ in answers).most_common(1)[0]
    assert row["n"] == 24 and row["answer"] == top and row["answer_share"] == pytest.approx(count / 24)
    assert row["original_share"] == pytest.approx(sum(o == top for _, o in answers) / 24)
    assert row["mass"] == pytest.approx(sum(r["members"][0]["raw_mass"] for r in written) / 24)
    rule = summary["member_health"]["rule"]
    collapsed = row["answer_share"] >= rule["collapse_share"] and row["original_share"] <= rule["spread_share"]
    assert row["collapsed"] is collapsed and row["low_mass"] is (row["mass"] < rule["min_mass"])
    assert (row["member"] in summary["member_health"]["named"]) is (collapsed or row["low_mass"])
    if row["named"]:  # the terminal names it with the way to leave it out
        assert f"--exclude-member {row['member']}" in " ".join(proc.stdout.split())


def test_stored_health_reads_the_ledgers_latest_results(tmp_path):
    from backend.ledger import Ledger
    from backend.scoring.member_health import stored_health

    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    assert stored_health(ledger, "7") is None  # nothing scored yet
    results = [_item(i, o, {"p:m/stuck@v1": "B", "p:m/fine@v1": o}, mass=0.3) for i, o in enumerate(_spread(21))]
    ledger.record_many("7", "label-audit-aaaa", results)
    stored = stored_health(ledger, "7")
    assert stored["model_version"] == "label-audit-aaaa"
    assert stored["members"] == member_health(results).to_dict()["members"]
    assert stored["named"] == ["p:m/stuck@v1", "p:m/fine@v1"]  # stuck collapsed; both below the mass floor
