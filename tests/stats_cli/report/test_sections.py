"""Report sections on test-built inputs, checked against statistics computed here independently."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score, f1_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from stats_cli.report.agreement import paradox_note, rater_agreement
from stats_cli.report.build import build_report
from stats_cli.report.model import Status
from stats_cli.report.threshold import threshold_for_precision
from tests.stats_cli.report.builders import SPEC, planted_audit, with_sample


def _fleiss(pairs):
    table, _ = aggregate_raters(np.array(pairs))
    return fleiss_kappa(table, method="fleiss")


def test_expert_kappa_before_and_after_match_statsmodels():
    data, truth = planted_audit()
    report = build_report(data)
    sec = report.section("experts")
    assert sec.status is Status.OK
    ids = sorted(data.reviews)
    before = [[int(data.reviews[i].round1["A"]), int(data.reviews[i].round1["B"])] for i in ids]
    after = [[int(truth[i]), int(truth[i])] for i in ids]  # reconciliation settles the split on the truth
    assert sec.values["before"]["fleiss_kappa"] == pytest.approx(_fleiss(before))
    assert sec.values["before"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(*zip(*before)))
    assert sec.values["before"]["pct_agreement"] == pytest.approx(np.mean([a == b for a, b in before]))
    assert sec.values["after"]["fleiss_kappa"] == pytest.approx(_fleiss(after)) == pytest.approx(1.0)
    assert sec.values["disagreed"] == 1 and sec.values["reconciled"] == 1
    assert sec.sizes["items with ≥2 expert answers"] == len(ids)


def test_without_a_sample_the_estimate_is_pending_and_only_counts_are_shown():
    data, truth = planted_audit()
    sec = build_report(data).section("errors")
    reviewed = [it for it in data.items if str(it.id) in data.reviews]
    k = sum(truth[str(it.id)] != it.original for it in reviewed)
    assert sec.values["reviewed"] == {"sample": len(reviewed), "n_errors": k}
    assert sec.values["floor"] == {"confirmed_errors": 9, "population": 40, "rate": 9 / 40}  # the 9 planted flips
    assert sec.values["estimate"] is None and "project" not in sec.values
    (table,) = sec.tables
    design_rows = [r for r in table.rows if r[1] == "PENDING" and "judges" not in r[0]]
    assert len(design_rows) == 5
    # No interval anywhere: flagged and agreed-with items are not a random sample.
    assert all(r[2] is None and r[3] is None for r in table.rows)
    assert any("no random sample" in n for n in sec.notes)


def _sampled(data, truth, *, design: str, budget: int):
    """``data`` with a drawn sample whose items the experts (A and B) answered with the truth."""
    return with_sample(data, truth, design=design, budget=budget)


def test_stratified_sample_gives_rate_precision_recall_and_errors_left():
    from stats_cli.stats.detector import detector_estimates
    from stats_cli.stats.error_rate import StratumCount, estimate_rate

    data, truth = planted_audit()
    data, draw = _sampled(data, truth, design="stratified", budget=10)
    sec = build_report(data).section("errors")
    est = sec.values["estimate"]
    n_flagged = sum(it.flagged for it in data.items)
    unflagged_errors = sum(truth[i.task_id] != data.items[int(i.task_id[1:])].original
                           for i in draw.items if i.stratum == "unflagged")
    strata = [StratumCount(n_flagged, n_flagged, 9, "flagged"), StratumCount(40 - n_flagged, 10, unflagged_errors)]
    ref = estimate_rate(strata)
    assert est["rate"]["value"] == pytest.approx(ref.rate) == pytest.approx(9 / 40)
    assert (est["rate"]["low"], est["rate"]["high"]) == pytest.approx((ref.low, ref.high))
    assert est["rate"]["n"] == n_flagged + 10 and est["unsettled"] == 0
    det = detector_estimates(strata[:1], strata[1:])
    assert est["precision"]["value"] == pytest.approx(9 / n_flagged)
    assert est["recall"]["value"] == pytest.approx(det.recall.rate) and est["recall"]["low"] < 1.0
    assert est["errors_left"]["high"] == pytest.approx(det.unflagged.errors_high)
    assert sec.sizes["random sample settled"] == n_flagged + 10
    assert not any("PENDING" == r[1] for r in sec.tables[0].rows)


def test_open_sampled_items_widen_the_interval_instead_of_being_dropped():
    from dataclasses import replace

    data, truth = planted_audit()
    full, draw = _sampled(data, truth, design="random", budget=20)
    control = next(i.task_id for i in draw.items if i.task_id not in data.routed)
    reviews = {k: v for k, v in full.reviews.items() if k != control}
    partial = replace(full, reviews=reviews)
    a = build_report(full).section("errors").values["estimate"]
    b = build_report(partial).section("errors").values["estimate"]
    assert b["unsettled"] == 1 and b["rate"]["n"] == a["rate"]["n"] - 1
    assert b["rate"]["high"] > a["rate"]["high"] and b["rate"]["low"] <= a["rate"]["low"]


def test_partially_reviewed_project_reports_pending_not_numbers():
    data, _ = planted_audit(reviewed_share=0.0)
    report = build_report(data)
    for key in ("experts", "errors", "confidence"):
        sec = report.section(key)
        assert sec.status is Status.PENDING, key
        assert sec.reason and not sec.tables
    assert report.section("audit").status is Status.OK
    assert report.section("crowd").status is Status.NOT_APPLICABLE


def test_unreconciled_split_keeps_after_pending():
    data, _ = planted_audit(reconcile=False)
    sec = build_report(data).section("experts")
    assert sec.values["after"] is None
    assert any("pending" in n for n in sec.notes)
    errors = build_report(data).section("errors")
    assert errors.sizes["open reviews"] == 1


def test_kappa_paradox_note_on_the_worked_example():
    # "Why is annotation hard?": 100 items, both toxic on 1, both not on 91, 4 split each way.
    a = ["1"] * 1 + ["0"] * 91 + ["1"] * 4 + ["0"] * 4
    b = ["1"] * 1 + ["0"] * 91 + ["0"] * 4 + ["1"] * 4
    answers = {str(i): {"A": x, "B": y} for i, (x, y) in enumerate(zip(a, b))}
    row = rater_agreement("raters", answers, spec=SPEC)
    assert row.value("pct_agreement") == pytest.approx(0.92)
    assert row.value("cohen_kappa") == pytest.approx(0.16, abs=0.01)
    assert row.value("positive_agreement") == pytest.approx(0.20)
    note = paradox_note(row)
    assert note and "genuinely disagree" in note
    # Issue case: 91 both "1", 1 both "0", 8 split. κ ≈ 0.16 and agreement on the configured
    # positive "1" is 0.96, but the rare class is "0" and the raters agree on 1 of its 9 items.
    a2 = ["1"] * 91 + ["0"] * 1 + ["1"] * 4 + ["0"] * 4
    b2 = ["1"] * 91 + ["0"] * 1 + ["0"] * 4 + ["1"] * 4
    row2 = rater_agreement("raters", {str(i): {"A": x, "B": y} for i, (x, y) in enumerate(zip(a2, b2))}, spec=SPEC)
    assert row2.value("cohen_kappa") == pytest.approx(cohen_kappa_score(a2, b2))
    assert row2.value("cohen_kappa") == pytest.approx(0.16, abs=0.01)
    assert row2.value("positive_agreement") == pytest.approx(2 * 91 / (2 * 91 + 8))  # 0.96, on "1"
    note2 = paradox_note(row2)
    assert note2 and "genuinely disagree" in note2 and "AC1 is the fairer" not in note2
    assert "'0'" in note2
    assert row2.summary.rare_label == "0"
    assert row2.summary.rare_agreement == pytest.approx(0.20)
    # High κ: no note at all.
    assert paradox_note(rater_agreement("r", {str(i): {"A": x, "B": x} for i, x in enumerate(a2)}, spec=SPEC)) is None


def test_threshold_for_precision_scans_from_high_confidence():
    conf = [0.95, 0.9, 0.85, 0.8, 0.7, 0.6]
    ok = [True, True, True, False, True, False]
    observed, assured = threshold_for_precision(conf, ok, target=0.8)
    assert observed.threshold == 0.7 and observed.kept == 5 and observed.confirmed == 4
    assert assured is None  # 4 of 5 cannot make 80% certain
    observed, assured = threshold_for_precision([0.9] * 30, [True] * 30, target=0.8)
    assert assured is not None and assured.precision_low == pytest.approx(binomtest(30, 30).proportion_ci().low)
    with pytest.raises(ValueError):
        threshold_for_precision(conf, ok, target=0)


def test_confidence_bins_and_threshold_section():
    data, truth = planted_audit()
    sec = build_report(data, target_precision=0.8).section("confidence")
    assert sec.status is Status.OK
    bins = sec.values["bins"]
    assert sum(b["n"] for b in bins) == len(data.reviews)
    llm_right = sum(truth[i] == data.items[int(i[1:])].prediction for i in data.reviews)
    assert sum(b["llm"]["share"] * b["n"] for b in bins) == pytest.approx(llm_right)
    # no control sample: the reliability curve would rest on circular gold, so it is replaced by the reason
    assert {f.key for f in sec.figures} == {"who_is_right"}
    assert any("Reliability curve: not drawn" in n for n in sec.notes)
    sampled, _ = _sampled(data, truth, design="random", budget=20)
    figures = build_report(sampled, target_precision=0.8).section("confidence").figures
    assert {f.key for f in figures} == {"who_is_right", "reliability"}


def test_ensemble_f1_for_the_full_ensemble_is_design_weighted_on_the_control_sample():
    # issue 22, finding 3: on every item with gold the full ensemble's recall is 1 by construction
    data, truth = planted_audit()
    sec = build_report(data).section("ensemble")
    assert "f1_by_size" not in sec.values and any("control sample" in n for n in sec.notes)
    sampled, draw = _sampled(data, truth, design="stratified", budget=15)
    sec = build_report(sampled).section("ensemble")
    by_id = {str(it.id): it for it in sampled.items}
    rows = [(by_id[d.task_id], truth[d.task_id], 1 / d.inclusion_probability) for d in draw.items]
    y_true = [g != it.original for it, g, _ in rows]
    y_flag = [it.prediction != it.original for it, _, _ in rows]
    full = max(sec.values["f1_by_size"])
    weighted = f1_score(y_true, y_flag, sample_weight=[w for *_, w in rows])
    assert sec.values["f1_by_size"][full] == pytest.approx(weighted)
    assert len({w for *_, w in rows}) > 1  # the weights differ across strata, so weighting matters


def test_crowd_majority_and_strict_against_gold():
    data, truth = planted_audit(crowd=True)
    report = build_report(data)
    sec = report.section("crowd")
    assert sec.status is Status.OK
    rows = {r[0]: r for r in sec.tables[1].rows}
    majority = {i: max(set(v.values()), key=list(v.values()).count) for i, v in data.crowd.items()}
    strict = {i: "0" if "0" in v.values() else "1" for i, v in data.crowd.items()}
    gold = {str(it.id): data.gold(it)[0] for it in data.items}
    assert rows["crowd majority"][2] == pytest.approx(np.mean([majority[i] == gold[i] for i in gold]))
    assert rows["crowd strict"][2] == pytest.approx(np.mean([strict[i] == gold[i] for i in gold]))
    # Dawid–Skene beside them, and each annotator's accuracy against gold with its interval and n (issue 22)
    from stats_cli.stats.crowd_quality import dawid_skene
    ds = dawid_skene(data.crowd)
    assert rows["crowd Dawid–Skene"][2] == pytest.approx(np.mean([ds.labels[i] == gold[i] for i in gold]))
    quality = {r[0]: r for r in sec.tables[2].rows}
    assert set(quality) == {"w1", "w2", "w3"}
    for name, row in quality.items():
        right = [v[name] == gold[i] for i, v in data.crowd.items() if name in v]
        # no review sample and gold partly the original by rule: the accuracy is printed without an interval
        assert row[2] == len(right) and row[3] == pytest.approx(np.mean(right)) and row[4] is None is row[5]
        assert row[7] == pytest.approx(ds.annotator_accuracy[name])
    assert any(n.startswith("Each annotator against gold: no interval") for n in sec.notes)
    strat = report.section("stratified")
    assert strat.status is Status.OK
    assert strat.tables[0].rows[-1][0] == "all" and strat.tables[0].rows[-1][1] == 40


def test_one_broken_section_does_not_take_the_report_down(monkeypatch):
    import stats_cli.report.build as build
    from stats_cli.report.sections.audit import AuditSection

    def boom(cls, _data, _options):
        raise RuntimeError("planted failure")

    monkeypatch.setattr(AuditSection, "compute", classmethod(boom))
    data, _ = planted_audit()
    report = build.build_report(data)
    assert "planted failure" in report.section("audit").reason
    assert report.section("errors").status is Status.OK


def test_models_rerank_on_gold_vs_original(tmp_path):
    from dataclasses import replace

    from sklearn.metrics import roc_auc_score

    from stats_cli.sources.audit_sources import load_models

    data, truth = planted_audit()
    lines = ["id,model,score"]
    for it in data.items:
        lines.append(f"{it.id},truthful,{0.9 if truth[str(it.id)] == '1' else 0.2}")
        lines.append(f"{it.id},copier,{0.8 if it.original == '1' else 0.1}")
    lines.append("t0,copier,not-a-number")
    path = tmp_path / "models.csv"
    path.write_text("\n".join(lines) + "\n")
    models, errors = load_models(str(path))
    assert [e.line for e in errors] == [len(lines)]
    sec = build_report(replace(data, models=models)).section("models")
    assert sec.status is Status.OK
    rows = {m["model"]: m for m in sec.values["models"]}
    assert (rows["truthful"]["rank_gold"], rows["copier"]["rank_original"]) == (1, 1)
    assert rows["truthful"]["rank_change"] == 1 and rows["copier"]["rank_change"] == -1
    ids = [str(it.id) for it in data.items]
    gold = [data.gold(it)[0] == "1" for it in data.items]
    assert rows["copier"]["roc_auc_gold"] == pytest.approx(roc_auc_score(gold, [models["copier"][i] for i in ids]))


def test_error_population_is_every_audited_item_even_without_a_verdict():
    # An item whose members all failed is still audited (it is in the ledger) and its label may be
    # wrong: the floor's N is the audit section's "items audited", not only the scored items.
    from dataclasses import replace

    from backend.scoring.results import ItemResult

    data, _ = planted_audit()
    failed = ItemResult(id="t40", original="1", prediction=None, confidence=None, probs=None, flagged=False,
                        error="provider_down")
    data = replace(data, items=(*data.items, failed))
    report = build_report(data)
    errors = report.section("errors")
    assert report.section("audit").values["items"] == 41
    assert errors.values["floor"]["population"] == errors.sizes["items audited"] == errors.sizes["N (the table's population)"] == 41
    assert any("no ensemble verdict" in note for note in errors.notes)


def test_errors_notes_match_the_sizes_split_after_reconciliation_is_unresolved():
    # Both experts reviewed t11 and still disagree after reconciliation: "unresolved", not
    # "nobody reviewed them", and the open-review count stays 0.
    from dataclasses import replace

    from stats_cli.report.inputs import ExpertReview

    data, truth = planted_audit()
    reviews = dict(data.reviews)
    reviews["t11"] = ExpertReview("t11", round1={"A": "1", "B": "0"}, round2={"A": "1", "B": "0"})
    sec = build_report(replace(data, reviews=reviews)).section("errors")
    assert sec.sizes["open reviews"] == 0 and sec.sizes["unresolved"] == 1
    assert any("1 item is unresolved" in n and "still disagree after reconciliation" in n for n in sec.notes)
    assert not any("nobody reviewed" in n or "never sent" in n for n in sec.notes)


def test_rater_agreement_uses_the_task_label_set():
    # AC1's chance term divides by q - 1 with q the scale's size (Gwet 2014), not the labels the
    # raters happened to use; and a binary task stays binary when everyone chose one label.
    from backend.task.spec import load_spec

    likert = load_spec("likert")
    answers = {"1": {"A": "3", "B": "4"}, "2": {"A": "4", "B": "4"}, "3": {"A": "5", "B": "5"}, "4": {"A": "3", "B": "3"}}
    row = rater_agreement("likert", answers, spec=likert)
    assert row.summary.categories == tuple(likert.labels)
    p = np.array([0.0, 0.0, 1.5, 1.5, 1.0]) / 4  # category shares over labels 1..5 (1, 2 unused)
    pe = float((p * (1 - p)).sum() / (5 - 1))
    assert row.value("gwet_ac1") == pytest.approx((0.75 - pe) / (1 - pe))
    unanimous = rater_agreement("binary", {str(i): {"A": "1", "B": "1"} for i in range(5)}, spec=SPEC)
    assert unanimous.value("gwet_ac1") == pytest.approx(1.0)
    assert unanimous.value("positive_agreement") == pytest.approx(1.0)
    assert unanimous.value("fleiss_kappa") is None  # κ is undefined, and says so


def test_models_with_one_gold_class_say_why_roc_auc_is_missing():
    from dataclasses import replace

    from stats_cli.report.render import render

    data, truth = planted_audit()
    positives = [str(it.id) for it in data.items if truth[str(it.id)] == "1"]
    models = {"only-positives": {i: 0.1 * (int(i[1:]) % 10) for i in positives}}
    report = build_report(replace(data, models=models))
    sec = report.section("models")
    assert sec.status is Status.OK
    row = sec.values["models"][0]
    assert row["roc_auc_gold"] is None and row["rank_gold"] is None
    assert any("only-positives" in n and "only one class" in n for n in sec.notes)
    assert "only one class" in render(report, fmt="md")


def test_models_file_non_finite_scores_are_bad_rows(tmp_path):
    from stats_cli.sources.audit_sources import load_models

    path = tmp_path / "models.csv"
    path.write_text("id,model,score\nt0,m,0.4\nt1,m,nan\nt2,m,inf\nt3,m,0.9\n")
    models, errors = load_models(str(path))
    assert models == {"m": {"t0": 0.4, "t3": 0.9}}
    assert [e.line for e in errors] == [3, 4]


def test_probe_table_names_the_task_negative_label():
    from dataclasses import replace

    from backend.task.spec import load_spec
    from stats_cli.report.inputs import ProbeRow
    from stats_cli.report.sections.probes import probes_section

    data, _ = planted_audit()
    probes = (ProbeRow("local:a/p1", "RandP-100", 10, 0.4),)
    likert = probes_section(replace(data, spec=load_spec("likert"), probes=probes))
    assert "expected label 1;" in likert.tables[0].title  # Likert probes deserve 1, not 0
    assert "expected label 0;" in probes_section(replace(data, probes=probes)).tables[0].title
    stuffed = (ProbeRow("local:a/p1", "NonRelP+Q", 7, 0.4, n_excluded=3),)
    sec = probes_section(replace(data, probes=stuffed))
    assert sec.tables[0].columns[2:4] == ("n (rests on)", "left out") and sec.tables[0].rows[0][2:4] == (7, 3)
    assert any("§3.2.1" in n for n in sec.notes)


def test_planted_probe_table_comes_from_the_store_for_a_generic_project(tmp_path):
    # Stored by the probe store, read back by the report's adapter, rendered by the section: no negative
    # class is needed. Nothing stored is PENDING (the probe can run on any single-label project).
    from dataclasses import replace

    from backend.task.generic import generic_spec
    from backend.probes.planted_metrics import PlantedStats
    from backend.probes.probe_store import save_probe_report
    from stats_cli.sources.audit_sources import probe_rows
    from stats_cli.report.inputs import ProbeRow
    from stats_cli.report.sections.probes import probes_section

    data, _ = planted_audit()
    generic = replace(data, spec=generic_spec(labels=["Positive", "Negative", "Neutral"], fields=["text"]))
    empty = probes_section(generic)
    assert empty.status is Status.PENDING and "planted-instruction" in empty.reason
    url = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    rows = [PlantedStats("local:m/p1", n=6, n_ok=5, n_errors=0, n_excluded=1, successes=4, success_rate=0.8,
                         ci_low=0.28, ci_high=0.99, delta_p_target=0.31).to_dict(),
            PlantedStats("ensemble", n=6, n_ok=6, n_errors=0, n_excluded=0, successes=0, success_rate=0.0,
                         ci_low=0.0, ci_high=0.46, delta_p_target=0.02).to_dict()]
    save_probe_report({"run_id": "r", "task": "generic", "created_at": "2026-12-01T05:00:00+00:00", "rows": rows},
                      url=url)
    sec = probes_section(replace(generic, probes=probe_rows(db_url=url)))
    assert sec.status is Status.OK and len(sec.tables) == 1
    table = sec.tables[0]
    assert table.columns[:5] == ("member", "n (rests on)", "left out", "successes", "success rate")
    assert [r[:8] for r in table.rows] == [("ensemble", 6, 0, 0, 0.0, 0.0, 0.46, 0.02),
                                           ("local:m/p1", 5, 1, 4, 0.8, 0.28, 0.99, 0.31)]
    assert "Most steerable: local:m/p1 (4 of 5 items, 80%)" in sec.notes[0]
    assert any("steers that judge" in n for n in sec.notes) and any("Rests on at most 6" in n for n in sec.notes)
    # Built-in rows of a task with a negative class still get their own table next to it.
    both = probes_section(replace(data, probes=(*probe_rows(db_url=url), ProbeRow("local:m/p1", "RandP-100", 10, 0.4))))
    assert len(both.tables) == 2 and "expected label 0;" in both.tables[0].title


def test_sections_register_themselves_in_reading_order():
    from stats_cli.report.registry import ReportSection, registered_sections

    keys = [section.key for section in registered_sections()]
    assert keys[:3] == ["audit", "experts", "errors"] and len(keys) == len(set(keys))
    with pytest.raises(ValueError, match="two report sections"):
        type("Clash", (ReportSection,), {"key": "audit", "title": "Another audit"})


def test_ensemble_against_gold_by_size_and_per_model_who_is_right():
    # Nahum Fig. 3 (left): ROC AUC of the averaged positive-class probability against gold; the one
    # subset of all four members is checked against scikit-learn here. Fig. 13: per model bins.
    from sklearn.metrics import roc_auc_score

    from stats_cli.stats.confidence_bins import confidence_bins

    data, truth = planted_audit()
    assert build_report(data).section("ensemble_gold").values["by_size"] == []  # no control sample: not shown
    data, draw = _sampled(data, truth, design="random", budget=20)
    sec = build_report(data).section("ensemble_gold")
    assert sec.status is Status.OK
    by_size = {row["size"]: row for row in sec.values["by_size"]}
    assert set(by_size) == {1, 2, 3, 4} and by_size[4]["subsets"] == 1
    by_id = {str(it.id): it for it in data.items}
    gold_items = [(by_id[d.task_id], truth[d.task_id]) for d in draw.items]
    p_pos = [np.mean([m.probs.get("1", 0.0) for m in it.members]) for it, _ in gold_items]
    assert by_size[4]["mean"] == pytest.approx(roc_auc_score([g == "1" for _, g in gold_items], p_pos))
    per_model = sec.values["per_model"]
    assert set(per_model) == {"local:a", "local:b"}
    # model "a": its two prompts averaged, on reviewed items where it disagrees with the original
    picked = []
    for it, gold in data.reviewed():
        avg = {lab: np.mean([m.probs.get(lab, 0.0) for m in it.members if m.member_id.startswith("local:a/")])
               for lab in ("0", "1")}
        pred = max(("0", "1"), key=lambda lab: (avg[lab], lab == "0"))
        if pred != it.original:
            picked.append((it.original, pred, max(avg.values()), gold))
    ref = confidence_bins(*zip(*picked), bins=5, resamples=200, seed=0)
    assert [b["n"] for b in per_model["local:a"]] == [b.n for b in ref]
    assert [b["llm"]["share"] for b in per_model["local:a"]] == pytest.approx([b.shares["llm"].value for b in ref])


def test_ensemble_against_gold_is_pending_without_gold():
    data, _ = planted_audit(reviewed_share=0.0)
    from dataclasses import replace

    no_gold = replace(data, items=tuple(replace(it, original=None) for it in data.items))
    assert build_report(no_gold).section("ensemble_gold").status is Status.PENDING


def test_ensemble_against_gold_uses_pearson_for_ordinal_tasks():
    from scipy.stats import pearsonr

    from backend.scoring.results import ItemResult, MemberResult
    from backend.task.spec import load_spec
    from stats_cli.report.inputs import AuditData
    from stats_cli.report.sections.ensemble_gold import quality_by_size
    from stats_cli.report.sections.ensemble import member_tensor

    likert = load_spec("likert")
    items = []
    for i in range(12):
        label = str(1 + i % 5)
        guess = str(min(5, int(label) + (i % 3 == 0)))
        probs = {lab: (0.8 if lab == guess else 0.05) for lab in likert.labels}
        items.append(ItemResult(id=f"o{i}", original=label, prediction=guess, confidence=0.8, probs=probs,
                                flagged=False, members=(MemberResult("local:m/p1", probs=probs, method="logprobs"),)))
    from backend.review.sampling import Candidate, draw_sample
    from stats_cli.report.inputs import ExpertReview

    data = AuditData(project="ordinal", spec=likert, items=tuple(items))
    gold = [data.gold(it)[0] for it in items]
    assert all(g is not None for g in gold)  # the ensemble is within one class everywhere: originals kept
    ids, probs = member_tensor(data)
    assert quality_by_size(data, probs) == []  # gold from Nahum's rule only: circular, not shown
    draw = draw_sample([Candidate(it.id, flagged=False) for it in items], budget=12, design="random", seed=0)
    reviews = {it.id: ExpertReview(it.id, round1={"A": g, "B": g}) for it, g in zip(items, gold)}
    data = AuditData(project="ordinal", spec=likert, items=tuple(items), reviews=reviews, sample=draw)
    ((size, subsets, mean, low, high),) = quality_by_size(data, probs)
    expected = pearsonr([int(it.prediction) for it in items], [int(g) for g in gold]).statistic
    assert (size, subsets) == (1, 1) and mean == pytest.approx(expected) == low == high


def test_member_tensor_takes_stored_answers_as_they_are_and_skips_one_that_is_not_a_distribution():
    import numpy as np

    from backend.scoring.results import ItemResult, MemberResult
    from backend.task.spec import load_spec
    from stats_cli.report.inputs import AuditData
    from stats_cli.report.sections.ensemble import member_tensor

    spec = load_spec("factual-consistency")
    good = {"0": 0.25, "1": 0.75}
    broken = {"0": 1.0, "1": 1.0}  # not normalised: never written by the engine; must not be rescaled into 0.5/0.5
    items = (ItemResult(id="a", original="1", prediction="1", confidence=0.75, probs=good, flagged=False,
                        members=(MemberResult("local:m/p1", probs=good), MemberResult("local:m/p2", probs=broken))),)
    ids, probs = member_tensor(AuditData(project="p", spec=spec, items=items))
    assert ids == ["local:m/p1", "local:m/p2"]
    assert probs[0, 0].tolist() == [0.25, 0.75]
    assert np.isnan(probs[0, 1]).all()


def test_expert_kappa_subset_is_nahums_disagreement_items_not_the_split_ones():
    # issue 22, finding 4: κ on the items the experts split on is −1 by construction with two experts
    data, _ = planted_audit()
    sec = build_report(data).section("experts")
    (table,) = sec.tables
    names = [r[0] for r in table.rows]
    assert not any("split" in str(n) for n in names)
    ids = [i for i in sorted(data.reviews) if len([v for v in data.reviews[i].round1.values() if v]) >= 2
           and data.disagrees(next(it for it in data.items if str(it.id) == i))]
    if len(ids) >= 10:
        row = table.rows[names.index("before, where the LLM disagrees with the original")]
        pairs = [[int(data.reviews[i].round1["A"]), int(data.reviews[i].round1["B"])] for i in ids]
        assert row[1] == len(ids) and row[3] == pytest.approx(_fleiss(pairs))
    else:
        assert any("Nahum's subset" in n and f"{len(ids)} item" in n for n in sec.notes)


def test_per_class_figures_have_no_interval_on_reviewed_items_and_a_design_weighted_domain_rate():
    # issue 22, finding 5: reviewed items (suspects + controls) are no random sample of any class
    data, truth = planted_audit()
    sampled, draw = _sampled(data, truth, design="stratified", budget=15)
    sec = build_report(sampled).section("classes")
    assert all("cp_low" not in row for row in sec.values["per_class"])
    by_id = {str(it.id): it for it in sampled.items}
    for row in sec.values["per_class"]:
        mine = [(1 / d.inclusion_probability, truth[d.task_id] != by_id[d.task_id].original) for d in draw.items
                if by_id[d.task_id].original == row["label"]]
        assert row["control_n"] == len(mine)
        if mine:
            assert row["domain_rate"] == pytest.approx(sum(w * e for w, e in mine) / sum(w for w, _ in mine))


def test_threshold_note_on_too_few_flags_says_so_instead_of_recommending():
    from stats_cli.report.sections.confidence import _threshold_note
    from stats_cli.report.threshold import ThresholdChoice

    one = ThresholdChoice(0.93, 1.0, 1, 1, 0.025)
    note = _threshold_note(one, None, 0.8)
    assert "too few to pick a threshold" in note and "1 of the 1 reviewed flag at" in note and "Pick" not in note
    many = ThresholdChoice(0.7, 0.85, 20, 17, 0.62)
    assert _threshold_note(many, None, 0.8).startswith("Pick a confidence threshold of 0.70: 17 of the 20 reviewed")


def test_each_annotator_against_gold_on_a_sample_is_the_designs_estimate():
    """With a review sample the annotators' table reads the drawn items (every item here: exact, issue 39)."""
    from .builders import with_sample

    data, truth = planted_audit(crowd=True)
    data, draw = with_sample(data, truth, design="random", budget=len(data.items))
    sec = build_report(data).section("crowd")
    table = sec.tables[2]
    assert "the review's sample" in table.title
    for name, n, with_gold, accuracy, low, high, *_ in table.rows:
        right = [v[name] == truth[i] for i, v in data.crowd.items()]
        assert with_gold == len(draw.items) and accuracy == pytest.approx(np.mean(right))
        assert low <= accuracy <= high
    assert not any(n.startswith("Each annotator against gold: no interval") for n in sec.notes)
