"""The truth model: crowd-kit's Dawid–Skene on hard labels, soft sources, and what gold anchors do."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from backend.review.truth_model import TruthModel

LABELS = ["a", "b", "c"]


def _crowd(seed: int, n: int = 150, accuracy=(0.9, 0.75, 0.6, 0.5)) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    truth, answers = {}, {}
    for i in range(n):
        t = LABELS[rng.integers(3)]
        truth[f"i{i}"] = t
        answers[f"i{i}"] = {f"w{w}": (t if rng.random() < acc else LABELS[rng.integers(3)])
                            for w, acc in enumerate(accuracy) if rng.random() < 0.85}
    return truth, answers


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_labels_without_anchors_give_crowd_kits_posteriors(seed):
    from crowdkit.aggregation import DawidSkene

    _truth, answers = _crowd(seed)
    frame = pd.DataFrame([(i, w, lab) for i, by in answers.items() for w, lab in by.items()],
                         columns=["task", "worker", "label"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = DawidSkene(n_iter=100).fit(frame)
    ours = TruthModel(LABELS).fit(answers).predict_proba()
    assert set(ours) == set(reference.probas_.index)
    worst = max(abs(float(reference.probas_.loc[i, lab]) - ours[i][lab]) for i in ours for lab in LABELS)
    assert worst < 1e-6


def test_a_soft_one_hot_source_is_the_same_as_a_hard_one():
    _truth, answers = _crowd(3)
    soft = {i: {w: {lab: 1.0} for w, lab in by.items()} for i, by in answers.items()}
    hard = TruthModel(LABELS).fit(answers).probas_
    assert TruthModel(LABELS).fit(soft).probas_ == pytest.approx(hard)


def test_anchors_clamp_items_and_pull_the_confusion_towards_the_gold():
    # Three colluding sources say "c" for every "b" item; one honest source is right 80% of the time.
    # Without gold, Dawid–Skene believes the majority (b items look like c, the colluders look accurate);
    # gold on some items shows who is right: the honest source's accuracy rises, the colluders' falls,
    # and the items nobody reviewed are labelled better.
    rng = np.random.default_rng(4)
    truth, answers = {}, {}
    for i in range(200):
        t = LABELS[rng.integers(3)]
        truth[f"i{i}"] = t
        by = {f"colluder{k}": ("c" if t == "b" else t) for k in range(3)}
        by["honest"] = t if rng.random() < 0.8 else LABELS[rng.integers(3)]
        answers[f"i{i}"] = by
    gold = dict(list(truth.items())[:60])
    free = TruthModel(LABELS).fit(answers)
    anchored = TruthModel(LABELS).fit(answers, anchors=gold)
    assert all(anchored.predict_proba()[i][g] == 1.0 for i, g in gold.items())
    rest = [i for i in truth if i not in gold]
    right_free = np.mean([free.predict()[i] == truth[i] for i in rest])
    right_anchored = np.mean([anchored.predict()[i] == truth[i] for i in rest])
    assert right_anchored > right_free + 0.1  # the unreviewed b items are recovered
    acc = {q.source: q.accuracy for q in anchored.source_quality()}
    acc_free = {q.source: q.accuracy for q in free.source_quality()}
    assert acc["honest"] > acc_free["honest"]
    assert acc["colluder0"] < acc_free["colluder0"]


def test_source_quality_orders_the_sources_by_their_real_accuracy():
    _truth, answers = _crowd(5, n=300)
    quality = {q.source: q for q in TruthModel(LABELS).fit(answers).source_quality()}
    assert quality["w0"].accuracy > quality["w1"].accuracy > quality["w3"].accuracy
    for q in quality.values():
        assert 0 <= q.low <= q.accuracy <= q.high <= 1
        assert all(abs(sum(row.values()) - 1) < 1e-9 for row in q.confusion.values())


def test_a_list_counts_each_label_of_a_pooled_source():
    model = TruthModel(LABELS).fit({"x": {"crowd": ["a", "a", "b"]}, "y": {"crowd": ["c", "c", "c"]}})
    assert {q.source: q.n for q in model.source_quality()} == {"crowd": 6}


def test_bad_observations_are_skipped_and_bad_options_refused():
    model = TruthModel(LABELS).fit({"x": {"s": "zzz", "t": None, "u": {}}, "y": {"s": "a", "t": {"b": 1.0}}})
    assert model.items_ == ["y"]
    assert TruthModel(LABELS).fit({}).predict_proba() == {}
    with pytest.raises(ValueError):
        TruthModel(["a"])
    with pytest.raises(ValueError):
        TruthModel(LABELS, n_iter=0)


def test_a_judges_accuracy_is_its_top1_label_not_the_expected_agreement_of_its_distribution():
    # Every item anchored, so the truth is known. The judge puts 0.6 on the true label every time: its top label
    # is always right (top-1 accuracy 1.0), while a label drawn from its distribution would be right 0.6 of the
    # time, the figure the table showed before. A tie of its two top labels counts half.
    truth = {f"i{i}": LABELS[i % 3] for i in range(30)}
    answers = {i: {"judge": {t: 0.6, **{o: 0.2 for o in LABELS if o != t}}, "annotator": t} for i, t in truth.items()}
    answers["i0"]["judge"] = {"a": 0.45, "b": 0.45, "c": 0.1}  # truth a: a tie between a and b
    quality = {q.source: q for q in TruthModel(LABELS).fit(answers, anchors=truth).source_quality()}
    assert quality["judge"].accuracy == pytest.approx((29 + 0.5) / 30)
    assert quality["judge"].soft and not quality["annotator"].soft


def test_the_bootstrap_interval_covers_the_planted_accuracy_where_wilson_is_narrower():
    # A few simulated projects (bench/bench_source_accuracy.py runs hundreds): the item bootstrap over refits is
    # wider than Wilson's interval, which takes the posterior as known, and holds the planted accuracies.
    from backend.review.source_accuracy import source_accuracies
    from backend.review.source_sim import SourceScenario, simulate_project
    from backend.review.triage import observations

    rng = np.random.default_rng(21)
    scenario = SourceScenario(n_items=150)
    covered, wider = [], []
    for r in range(5):
        project = simulate_project(scenario, rng)
        model = TruthModel(list(scenario.labels)).fit(observations(project.evidence))
        wilson = {q.source: q for q in model.source_quality()}
        for q in source_accuracies(model, refits=60, seed=r):
            assert q.interval == "bootstrap (60 refits)" and q.low <= q.accuracy <= q.high
            covered.append(q.low <= project.planted[q.source] <= q.high)
            wider.append((q.high - q.low) - (wilson[q.source].high - wilson[q.source].low))
    assert np.mean(covered) >= 0.85, np.mean(covered)  # 45 intervals at 95 %: 0.85 is 3 standard errors below
    assert np.mean(wider) > 0.0


def test_one_model_one_source_keeps_the_posterior_calibrated_where_a_source_per_prompt_does_not():
    # Three models of three near-identical prompts each: counted once per prompt, a model's opinion counts
    # three times and posteriors in [0.9, 0.99) claim more than they deliver; averaged, they hold.
    from backend.review.source_sim import SourceScenario, simulate_project
    from backend.review.triage import observations

    project = simulate_project(SourceScenario(n_items=1500), np.random.default_rng(2))
    gaps = {}
    for per_prompt in (True, False):
        obs = observations(project.evidence, per_prompt=per_prompt)
        assert ("sim:m0/p0@v1" in obs["i0"]) is per_prompt and ("sim:m0" in obs["i0"]) is not per_prompt
        post = TruthModel(LABELS).fit(obs).predict_proba()
        band = [(max(row.values()), max(row, key=row.get) == project.truth[i]) for i, row in post.items()
                if 0.9 <= max(row.values()) < 0.99]
        gaps[per_prompt] = np.mean([p for p, _ in band]) - np.mean([ok for _, ok in band])
    assert gaps[True] > 0.08 and abs(gaps[False]) < 0.04, gaps


def test_the_table_reads_judges_against_a_fit_on_top_labels_where_the_soft_fit_runs_low():
    # Unsure judges (0.5-0.95 on their top label): the soft fit weighs them less than their top label deserves,
    # so their top-1 accuracy read against it runs about 5 points low; the table's fit on top labels does not.
    from backend.review.source_accuracy import source_table
    from backend.review.source_sim import SourceScenario, simulate_project
    from backend.review.triage import observations

    project = simulate_project(SourceScenario(n_items=1500, right_mass=(0.6, 0.95), wrong_mass=(0.5, 0.8)),
                               np.random.default_rng(2))
    obs = observations(project.evidence)
    soft = TruthModel(LABELS).fit(obs)
    soft_gap = [a - project.planted[s] for s, a in zip(soft.sources_, soft.top1_accuracy()) if s.startswith("sim:")]
    table = {q.source: q for q in source_table(obs, labels=LABELS, refits=0)}
    table_gap = [q.accuracy - project.planted[s] for s, q in table.items() if s.startswith("sim:")]
    assert np.mean(soft_gap) < -0.03 and abs(np.mean(table_gap)) < 0.015, (soft_gap, table_gap)
    assert table["sim:m0"].soft and not table["annotator:w0"].soft
