"""The report's planted-errors section: the project's known errors, their rank, AP and the experts' answers."""

from __future__ import annotations

from backend.scoring.results import ItemResult, MemberResult
from backend.task.spec import load_spec
from stats_cli.report.build import build_report
from stats_cli.report.inputs import AuditData, ExpertReview

FC = load_spec("factual-consistency")


def _item(i: int, original: str, p_one: float, *, planted: bool | None) -> ItemResult:
    probs = {"1": p_one, "0": 1.0 - p_one}
    top = max(probs, key=probs.get)
    data = {} if planted is None else {"planted": planted, "item": f"snli-{i}"}
    return ItemResult(id=f"t{i}", original=original, prediction=top, confidence=probs[top], probs=probs,
                      flagged=top != original and probs[top] > 0.5, members=(MemberResult("local:a/p", probs=probs),),
                      data=data)


def test_planted_errors_are_ranked_and_shown_with_the_experts_answers():
    items = (_item(0, "1", 0.1, planted=True), _item(1, "0", 0.3, planted=False), _item(2, "1", 0.9, planted=False),
             _item(3, "0", 0.6, planted=True))
    reviews = {"t0": ExpertReview("t0", round1={"ana": "0", "ben": "0"})}
    data = AuditData(project="p", spec=FC, items=items, routed=frozenset({"t0", "t3"}), reviews=reviews)
    section = build_report(data).section("planted")
    assert section.values["found"] == 2 and section.values["average_precision"] == 1.0
    summary, table = section.tables
    assert [row[0] for row in table.rows] == ["t0 (snli-0)", "t3 (snli-3)"]  # most suspect first, the item's own id
    assert table.rows[0][-1] == "ana: 0, ben: 0" and table.rows[1][-1] == "sent to review, no answer yet"


def test_not_applicable_without_a_planted_field():
    items = (_item(0, "1", 0.1, planted=None), _item(1, "0", 0.3, planted=None))
    section = build_report(AuditData(project="p", spec=FC, items=items)).section("planted")
    assert section.status.name == "NOT_APPLICABLE"
