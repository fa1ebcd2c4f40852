"""The review's sampling design without Label Studio: allocation, seeded draws, blind order, one draw per project."""

from __future__ import annotations

import pytest

from backend.sqlstore.connection import make_db_engine
from backend.review.sample_store import SampleStore, ensure_draw
from backend.review.sampling import (
    ALL,
    FLAGGED_OTHER,
    FLAGGED_REVIEWED,
    UNFLAGGED,
    Candidate,
    allocate,
    assign_strata,
    blind_order,
    draw_sample,
)


def project(n: int = 200, flagged_every: int = 10) -> list[Candidate]:
    return [Candidate(str(i), flagged=i % flagged_every == 0, in_review=i % flagged_every == 0,
                      confidence=0.5 + (i % 50) / 100) for i in range(n)]


def test_allocation_is_proportional_exact_in_total_and_capped() -> None:
    assert allocate(10, {"a": 300, "b": 100}) == {"a": 8, "b": 2}  # 7.5 / 2.5: the tie goes by name
    assert sum(allocate(7, {"a": 5, "b": 5, "c": 5}).values()) == 7
    assert allocate(50, {"a": 3, "b": 4}) == {"a": 3, "b": 4}
    with pytest.raises(ValueError):
        allocate(-1, {"a": 1})


def test_random_design_is_one_stratum_of_every_item() -> None:
    draw = draw_sample(project(), budget=30, design="random", seed=1)
    assert draw.strata == {ALL: 200} and len(draw.items) == 30
    assert {i.inclusion_probability for i in draw.items} == {30 / 200}


def test_stratified_design_keeps_flagged_in_review_as_a_census_and_samples_the_rest() -> None:
    cands = project()
    cands[0] = Candidate("0", flagged=True, in_review=False)  # a flag the budget left out of review
    draw = draw_sample(cands, budget=20, design="stratified", seed=1)
    assert draw.strata == {FLAGGED_REVIEWED: 19, FLAGGED_OTHER: 1, UNFLAGGED: 180}
    sizes = draw.sample_sizes()
    assert sizes[FLAGGED_REVIEWED] == 19 and sizes[FLAGGED_OTHER] + sizes[UNFLAGGED] == 20
    assert all(i.inclusion_probability == 1.0 for i in draw.items if i.stratum == FLAGGED_REVIEWED)


def test_confidence_bands_split_the_unflagged_stratum() -> None:
    strata = assign_strata(project(), design="stratified", bands=(0.8,))
    assert set(strata) == {FLAGGED_REVIEWED, f"{UNFLAGGED}, confidence 0–0.8", f"{UNFLAGGED}, confidence 0.8–1"}


def test_draw_is_seeded_and_ignores_the_order_rows_came_in() -> None:
    cands = project()
    a = draw_sample(cands, budget=25, design="stratified", seed=3)
    b = draw_sample(list(reversed(cands)), budget=25, design="stratified", seed=3)
    c = draw_sample(cands, budget=25, design="stratified", seed=4)
    ids = lambda d: sorted(i.task_id for i in d.items)  # noqa: E731
    assert ids(a) == ids(b) and ids(a) != ids(c)


def test_blind_order_does_not_follow_stratum_or_confidence() -> None:
    cands = project(400, flagged_every=5)
    order = blind_order([c.task_id for c in cands], key="k")
    flagged = {c.task_id for c in cands if c.flagged}
    first_half = order[:200]
    share = sum(t in flagged for t in first_half) / 200
    assert 0.12 < share < 0.28  # 20 % flagged overall; a sort by stratum would give 0 or 0.4
    assert order == blind_order(list(reversed(order)), key="k") and order != blind_order(order, key="other")


def test_a_project_is_drawn_once(tmp_path) -> None:
    store = SampleStore(make_db_engine(f"sqlite:///{tmp_path / 'a.sqlite'}"))
    cands = project()
    first, new = ensure_draw(store, "p1", cands, budget=15, design="stratified", seed=2)
    assert new and store.draw("p1") == first
    again, new_again = ensure_draw(store, "p1", list(reversed(cands)), budget=15, design="stratified", seed=2)
    assert not new_again and again == first
    for kwargs in ({"design": "random", "seed": 2, "budget": 15}, {"design": "stratified", "seed": 9, "budget": 15},
                   {"design": "stratified", "seed": 2, "budget": 5}):
        with pytest.raises(ValueError, match="never re-drawn"):
            ensure_draw(store, "p1", cands, **kwargs)
    assert store.sampled_ids("p1") == frozenset(i.task_id for i in first.items)
    assert store.draw("other") is None


def test_sample_progress_counts_only_items_the_experts_settled():
    from backend.review.outcome import GoldStatus, ReviewOutcome
    from backend.review.sampling import Draw, DrawnItem
    from backend.review.status import StratumProgress, sample_progress

    draw = Draw(design="stratified", seed=1, strata={FLAGGED_REVIEWED: 3, UNFLAGGED: 10},
                items=(DrawnItem("a", FLAGGED_REVIEWED, 3, 3), DrawnItem("b", FLAGGED_REVIEWED, 3, 3),
                       DrawnItem("c", FLAGGED_REVIEWED, 3, 3), DrawnItem("x", UNFLAGGED, 10, 2),
                       DrawnItem("y", UNFLAGGED, 10, 2)))
    outcomes = [
        ReviewOutcome("a", "0", "1", 0.9, "1", GoldStatus.EXPERTS_AGREE),
        ReviewOutcome("b", "0", "1", 0.9, "0", GoldStatus.RECONCILED),
        ReviewOutcome("c", "0", "1", 0.9, None, GoldStatus.SPLIT_UNRESOLVED),  # drawn, not settled
        ReviewOutcome("x", "0", "0", 0.6, "0", GoldStatus.AGREED_WITH_ENSEMBLE),  # not the experts' label
        ReviewOutcome("z", "0", "0", 0.6, "0", GoldStatus.EXPERTS_AGREE),  # settled, but not drawn
    ]
    assert sample_progress(draw, outcomes) == [StratumProgress(FLAGGED_REVIEWED, 3, 3, 2),
                                               StratumProgress(UNFLAGGED, 10, 2, 0)]


def test_every_sampled_stratum_gets_two_draws_so_no_rate_stays_pending() -> None:
    # issue 22, finding 2: proportional allocation gave the 30 left-out flags 0 of 100 draws
    plan = allocate(100, {"flagged, not in review": 30, "unflagged": 9970})
    assert plan == {"flagged, not in review": 2, "unflagged": 98}
    assert allocate(5, {"a": 1, "b": 20, "c": 10}) == {"a": 1, "b": 2, "c": 2}  # a stratum of 1 gets its one item
    assert allocate(3, {"a": 30, "b": 20, "c": 10}) == {"a": 2, "b": 1, "c": 0}  # too small a budget: largest first


def test_neyman_allocation_follows_size_times_spread() -> None:
    sizes = {"flagged, not in review": 400, "unflagged": 3600}
    proportional = allocate(200, sizes)
    neyman = allocate(200, sizes, spread={"flagged, not in review": 0.48, "unflagged": 0.15})
    assert proportional == {"flagged, not in review": 20, "unflagged": 180}
    assert neyman["flagged, not in review"] == round(200 * 400 * 0.48 / (400 * 0.48 + 3600 * 0.15))
    assert sum(neyman.values()) == 200


def test_stratified_draw_uses_the_ensembles_confidence_for_neyman() -> None:
    cands = [Candidate(str(i), flagged=i < 100, in_review=False, confidence=0.6 if i < 100 else 0.97)
             for i in range(1000)]
    sizes = draw_sample(cands, budget=100, design="stratified", seed=1).sample_sizes()
    # S_flagged = sqrt(.6·.4) ≈ .49, S_unflagged = sqrt(.03·.97) ≈ .17: 100·49/(49+153) ≈ 24 flagged draws
    assert sizes["flagged, not in review"] == 24 and sizes["unflagged"] == 76
    no_conf = [Candidate(c.task_id, flagged=c.flagged, in_review=False) for c in cands]
    assert draw_sample(no_conf, budget=100, design="stratified", seed=1).sample_sizes()["flagged, not in review"] == 10
