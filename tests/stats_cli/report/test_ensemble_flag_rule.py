"""The report's ensemble-size curve flags by the task's own rule (relevance: across the 2|3 vs 0|1 boundary)."""

from __future__ import annotations

import dataclasses

from backend.scoring.results import ItemResult, MemberResult
from backend.review.sampling import Candidate, draw_sample
from backend.task.spec import load_spec
from stats_cli.report.build import build_report
from stats_cli.report.inputs import AuditData, ExpertReview

REL = load_spec("relevance")
MEMBERS = ("local:a/p1", "local:a/p2", "local:b/p1", "local:b/p2")


def _item(i: int, original: str, predicted: str, *, stopped: bool = False) -> ItemResult:
    probs = {lab: (0.94 if lab == predicted else 0.02) for lab in REL.labels}
    members = tuple(MemberResult(m, probs=probs) for m in MEMBERS[: 2 if stopped else 4])
    return ItemResult(id=f"r{i}", original=original, prediction=predicted, confidence=0.94, probs=probs,
                      flagged=True, members=members, stopped_early=stopped)


def test_size_curve_flags_a_one_versus_two_relevance_error_and_leaves_stopped_items_out():
    items = [_item(0, "1", "2"), _item(1, "1", "2"), _item(2, "3", "3"), _item(3, "0", "0")]
    reviews = {f"r{i}": ExpertReview(f"r{i}", round1={"A": g, "B": g}) for i, g in enumerate(("2", "2", "3", "0"))}
    # every item in the random control sample: F1 by size rests on it (issue 22)
    draw = draw_sample([Candidate(it.id, flagged=it.flagged) for it in items], budget=4, design="random", seed=0)
    data = AuditData(project="rel", spec=REL, items=tuple(items), routed=frozenset({"r0", "r1"}), reviews=reviews,
                     sample=draw)
    sec = build_report(data).section("ensemble")
    assert sec.values["f1_by_size"][4] == 1.0  # both 1-vs-2 errors flagged by every full-size ensemble
    stopped = dataclasses.replace(data, items=(*items[:3], _item(3, "0", "0", stopped=True)))
    notes = build_report(stopped).section("ensemble").notes
    assert any("1 of 4 items stopped early" in n for n in notes)
