"""The report's "Rankings" section on a small ranker audit whose W, τ and reversed pairs are worked by hand."""

from __future__ import annotations

import json

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.results import ItemResult
from stats_cli.report.build import build_report
from stats_cli.report.model import Status
from stats_cli.report.sections.rankings import rankings_section
from stats_cli.sources.audit_data import AuditData, ExpertReview
from tests.backend.families.test_ranker import PLAIN


def v(*ids: str) -> str:
    return json.dumps({"rank": list(ids)}, separators=(",", ":"))


def _audit() -> AuditData:
    spec = spec_from_label_config(PLAIN)
    rows = [  # original, ensemble, reversed pairs, expert A, expert B
        (v("a", "b", "c"), v("a", "b", "c"), 0, v("a", "b", "c"), v("a", "b", "c")),  # W 1, τ 1
        (v("a", "b", "c"), v("b", "a", "c"), 1, v("b", "a", "c"), v("c", "b", "a")),  # W 1/4, τ -1/3
        (v("a", "b"), v("b", "a"), 1, v("b", "a"), v("b", "a")),
    ]
    items, reviews = [], {}
    for k, (original, ensemble, swapped, a, b) in enumerate(rows):
        items.append(ItemResult(id=f"t{k}", original=original, prediction=ensemble, confidence=0.8, probs=None,
                                flagged=swapped > 0, data={"ranker_swapped": swapped}))
        reviews[f"t{k}"] = ExpertReview(f"t{k}", round1={"A": a, "B": b})
    return AuditData(project="p", spec=spec, items=tuple(items), routed=frozenset(reviews), reviews=reviews,
                     experts=("A", "B"))


def test_rankings_section_gives_w_tau_and_reversed_pairs():
    sec = rankings_section(_audit())
    assert sec.status is Status.OK
    experts = sec.values["agreement"]["experts, before reconciliation"]
    # item t1: A = b a c, B = c b a: τ = -1/3; rank sums a 2+3, b 1+2, c 3+1 -> 5, 3, 4 (mean 4): S = 2,
    # W = 12 * 2 / (4 * (27 - 3)) = 0.25; items t0 and t2: W = 1, τ = 1.
    assert experts["items"] == 3
    assert experts["mean_kendall_w"] == pytest.approx((1 + 0.25 + 1) / 3)
    assert experts["mean_pairwise_tau"] == pytest.approx((1 - 1 / 3 + 1) / 3)
    ensemble = sec.values["tau"]["ensemble vs original"]
    assert ensemble["n"] == 3 and ensemble["mean"] == pytest.approx((1 + 1 / 3 - 1) / 3)
    assert ensemble["share_below_1"] == pytest.approx(2 / 3) and ensemble["share_negative"] == pytest.approx(1 / 3)
    assert sec.values["reversed_pairs"] == {"0": 1, "1": 2}


def test_rankings_section_applies_to_rankers_only_and_rankers_skip_class_sections():
    report = build_report(_audit())
    assert report.section("rankings").status is Status.OK
    assert report.section("classes").status is Status.NOT_APPLICABLE
    assert report.section("pairwise").status is Status.NOT_APPLICABLE
