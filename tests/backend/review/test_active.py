"""Calibration on the control sample and active review, on real scores with known errors.

The scores are the confident-learning member's (real scikit-learn) on the demo's tickets, whose planted
errors are the only wrong labels; the "experts" settle each drawn control item with its true label. The
draw is the review's own stratified design (:func:`backend.review.sampling.draw_sample`)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rich.console import Console

from backend.commands.score import run_scoring
from backend.demo.tickets import LABELS, write_tickets
from backend.scoring.engine import EngineConfig
from backend.task.generic import generic_spec
from backend.scoring.members import MemberSpec, build_members
from backend.scoring.results import ItemResult
from backend.review.active import control_sample, rank_suspects
from backend.review.calibration import fit_calibration, not_enough, stacking_gain
from backend.review.outcome import GoldStatus, ReviewOutcome
from backend.review.sampling import Candidate, draw_sample
from stats_cli.sources.audit_data import AuditData
from stats_cli.report.sections.calibration import calibration_section

SPEC = generic_spec(labels=list(LABELS), fields=["text"], name="tickets")


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tickets")
    sample = write_tickets(folder / "t.jsonl", n=240, error_rate=0.15, seed=11)
    out = folder / "out.jsonl"
    run_scoring(sample, SPEC, build_members([MemberSpec(provider="cleanlab", model="tfidf-logreg")], SPEC),
                config=EngineConfig(), cache=None, out=out, summary_json=None, top=5, progress=False,
                console=Console(file=open("/dev/null", "w")))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    truth = {r["id"]: r["data"]["planted"] for r in rows}
    return [ItemResult.from_json(r) for r in rows], truth


def settle(results, draw, truth):
    """The experts' verdict on each drawn item: the label is wrong exactly when it was planted."""
    by_id = {str(r.id): r for r in results}
    out = {}
    for drawn in draw.items:
        r = by_id[drawn.task_id]
        gold = next(c for c in LABELS if c != r.original) if truth[drawn.task_id] else r.original
        out[drawn.task_id] = ReviewOutcome(drawn.task_id, r.original, r.prediction, r.confidence, gold,
                                           GoldStatus.EXPERTS_AGREE)
    return out


def test_control_sample_calibrates_and_ranks_unreviewed_suspects(scored):
    results, truth = scored
    draw = draw_sample([Candidate(str(r.id), r.flagged, confidence=r.confidence) for r in results], budget=100,
                       design="stratified", seed=0)
    control = control_sample(results, draw, settle(results, draw, truth))
    assert len(control.ids) == 100 and set(np.round(control.weights, 6)) == {
        round(1 / d.inclusion_probability, 6) for d in draw.items}
    ranking = rank_suspects(results, control, reviewed=set(control.ids))
    fit = ranking.calibration
    assert fit is not None and fit.average_precision() > 2 * np.average(control.wrong, weights=control.weights)
    ranked = dict(ranking.ranked)
    assert ranked and not set(ranked) & set(control.ids)
    assert all(r.flagged for r in results if str(r.id) in ranked)
    planted = [p for i, p in ranked.items() if truth[i]]
    assert planted and np.mean(planted) > 0.5
    rows = fit.precision_by_threshold()
    assert [r["n"] for r in rows] == sorted((r["n"] for r in rows), reverse=True)

    data = AuditData(project="tickets", spec=SPEC, items=tuple(results), sample=draw,
                     gold_labels=settle(results, draw, truth))
    section = calibration_section(data)
    assert section.status.value == "ok" and section.values["n"] == 100
    assert [n["id"] for n in section.values["next"]] == list(ranked)


def test_pending_below_the_minimum_and_refused_fit(scored):
    results, truth = scored
    draw = draw_sample([Candidate(str(r.id), r.flagged) for r in results], budget=20, design="random", seed=1)
    control = control_sample(results, draw, settle(results, draw, truth))
    assert "PENDING" in not_enough(control.wrong)
    assert rank_suspects(results, control, reviewed=set()).calibration is None
    with pytest.raises(ValueError, match="PENDING"):
        fit_calibration(control.scores, control.wrong)
    data = AuditData(project="tickets", spec=SPEC, items=tuple(results), sample=draw,
                     gold_labels=settle(results, draw, truth))
    assert calibration_section(data).status.value == "pending"


def test_stacking_reports_the_gain_with_its_interval(scored):
    results, truth = scored
    wrong = np.array([truth[str(r.id)] for r in results])
    cl = np.array([1 - r.probs[r.original] for r in results])
    noise = np.random.default_rng(0).random(len(results))  # a member at chance, as the embedded judge is
    gain = stacking_gain(np.c_[cl, noise], wrong, boots=300)
    low, high = gain["gain_ci95"]
    assert low <= gain["gain"] <= high and gain["n"] == len(results)
    assert gain["ap_stacked"] > gain["ap_average"] - 0.05  # learnt weights do not lose to averaging in noise


def test_report_shows_cleanlab_ranking_beside_the_flags(scored):
    from stats_cli.report.sections.confident import confident_section

    results, truth = scored
    section = confident_section(AuditData(project="tickets", spec=SPEC, items=tuple(results)))
    block = section.values["cleanlab:tfidf-logreg/features@v1"]
    assert block["items"] == 240 and block["issues"] > 0 and block["also_flagged_by_ensemble"] > 0
    top = [row["id"] for row in block["top"]]
    assert sum(truth[i] for i in top) >= 7  # its top 10 are mostly planted errors (36 of 240 planted)
    from backend.scoring.results import ItemResult as R
    bare = [R(id=r.id, original=r.original, prediction=r.prediction, confidence=r.confidence, probs=r.probs,
              flagged=r.flagged) for r in results]
    assert confident_section(AuditData(project="t", spec=SPEC, items=tuple(bare))).status.value == "not applicable"


def test_push_next_orders_candidates_by_the_stored_control_sample(scored, tmp_path):
    """`review push --next N`'s ranking from what the review stores hold (ledger, stored draw, stored gold)."""
    from backend.ledger import Ledger
    from backend.review.push import _next_by_calibration
    from backend.review.sample_store import SampleStore
    from backend.review.review_store import ReviewStore

    results, truth = scored
    ledger = Ledger(f"sqlite:///{tmp_path / 'audit.sqlite'}")
    ledger.record_many("tickets", "v1", results)
    store = ReviewStore(db_engine=ledger.db_engine)
    draw = draw_sample([Candidate(str(r.id), r.flagged, confidence=r.confidence) for r in results], budget=100,
                       design="stratified", seed=0)
    SampleStore(ledger.db_engine).save("tickets", draw)
    with pytest.raises(ValueError, match="PENDING"):  # no verdict stored yet
        _next_by_calibration(store, ledger, "tickets", [r for r in results if r.flagged], set())
    store.set_gold("tickets", list(settle(results, draw, truth).values()))
    drawn = {d.task_id for d in draw.items}
    candidates = [r for r in results if r.flagged and str(r.id) not in drawn]
    ordered = _next_by_calibration(store, ledger, "tickets", candidates, drawn)
    assert sorted(str(r.id) for r in ordered) == sorted(str(r.id) for r in candidates)
    expected = rank_suspects(results, control_sample(results, draw, settle(results, draw, truth)), reviewed=drawn)
    assert [str(r.id) for r in ordered] == [i for i, _ in expected.ranked]
