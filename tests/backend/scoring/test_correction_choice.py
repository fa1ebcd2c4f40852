"""``auto``: of the gate's verdicts, ``given`` and ``fitted``, the reading that agrees with the most project labels.

Synthetic judges whose truth is known (the projects of ``test_label_fit``): where most judges are blind to a class
one judge reads, ``fitted`` recovers it and must be chosen; where every judge reads every class, no reading beats
the average by enough to be chosen over it, or a tie keeps the simpler. Each choice is checked against the
candidates recomputed here with the product's own corrections, never against a hard-coded name alone.
"""

from __future__ import annotations

import numpy as np

from backend.scoring.correction_choice import CANDIDATES, agreement, choose_correction
from backend.scoring.ensemble import verdict
from backend.scoring.health_gate import gate_results
from backend.scoring.prior_shift import correct_results
from backend.scoring.project_pass import project_pass
from backend.scoring.results import ItemResult, MemberResult
from backend.summaries.score_summary import adjustment_lines
from tests.backend.scoring.test_label_fit import JUDGES, LABELS, RULE, _predicted, _project


def _candidates(results):
    gated, gate = gate_results(results, RULE)
    out = {"none": gated}
    for mode in CANDIDATES[1:]:
        corrected, info = correct_results(results, RULE, mode=mode, left_out=gate.left_out)
        if not info.get("note"):
            out[mode] = corrected
    return out


def test_the_reading_that_agrees_with_most_labels_is_chosen_and_it_finds_the_hidden_class():
    results, y, given = _project(300)
    chosen, info = project_pass(results, RULE, prior_correction="auto")
    candidates = _candidates(results)
    scores = {m: agreement(r, LABELS) for m, r in candidates.items()}
    assert info["prior_correction"]["agreement"] == scores
    best = max(s["agree"] for s in scores.values())
    assert info["prior_correction"]["chosen"] == "fitted" and scores["fitted"]["agree"] == best > scores["none"]["agree"]
    assert [(r.prediction, r.flagged) for r in chosen] == [(r.prediction, r.flagged) for r in candidates["fitted"]]
    assert (_predicted(chosen) == y).mean() > (_predicted(candidates["none"]) == y).mean() + 0.05
    assert info["prior_correction"]["members"] == sorted(JUDGES)  # the chosen correction's own block comes along
    lines = [line for line in adjustment_lines(info) if line.startswith("Prior correction")]
    assert lines[0].startswith("Prior correction auto: chose fitted, the reading whose verdicts agree with the most")
    assert f"fitted {scores['fitted']['agree']} of 300" in lines[0]
    assert f"the judges' average {scores['none']['agree']} of 300" in lines[0]
    assert lines[1].startswith("Prior correction fitted: each verdict re-read by a model of the run's own labels")


def _seeing(n: int, seed: int, *, lift: float = 3.0):
    """Three judges that read every class (no blind spot, the true class's logit raised by ``lift``), labels 10 %
    flipped."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n)
    given = np.where(rng.random(n) < 0.1, (y + 1) % 3, y)
    results = []
    for i, (c, g) in enumerate(zip(y, given)):
        members = []
        for judge in JUDGES:
            logits = rng.normal(0.0, 1.0, 3)
            logits[c] += lift
            p = np.exp(logits) / np.exp(logits).sum()
            members.append(MemberResult(judge, probs=dict(zip(LABELS, map(float, p)))))
        d = verdict([m.probs for m in members], ["local:m"] * 3, LABELS[g], RULE)
        results.append(ItemResult(id=f"s-{i}", original=LABELS[g], prediction=d.prediction, confidence=d.confidence,
                                  probs=d.probs, flagged=d.flagged, members=tuple(members)))
    return results


def test_a_tie_keeps_the_simpler_reading_and_the_choice_is_the_best_agreement():
    for seed in range(4):
        results = _seeing(90, seed)
        _, info = project_pass(results, RULE, prior_correction="auto")
        block = info["prior_correction"]
        scores = {m: agreement(r, LABELS)["agree"] for m, r in _candidates(results).items()}
        best = max(scores.values())
        first_best = next(m for m in CANDIDATES if scores.get(m) == best)
        assert block["chosen"] == first_best, (seed, scores)
    # judges sure of every class: the average is right wherever the label is; `given` ties it (the same verdicts)
    # and the simpler reading stands; `fitted` learns the noise of 72 labels and agrees less
    sure = _seeing(90, 0, lift=9.0)
    _, block = choose_correction(sure, gate_results(sure, RULE)[0], RULE)
    scores = {m: a["agree"] for m, a in block["agreement"].items()}
    assert scores["none"] == scores["given"] > scores["fitted"] and block["chosen"] == "none"


def test_a_correction_that_refuses_is_not_a_candidate_and_the_summary_says_why():
    results, _, _ = _project(60, seed=3, prior=(0.8, 0.1, 0.1))  # fewer than 10 labels of B or C
    _, info = project_pass(results, RULE, prior_correction="auto")
    block = info["prior_correction"]
    assert "fitted" in block["refused"] and "fitted" not in block["agreement"]
    assert block["chosen"] in ("none", "given")
    line = next(line for line in adjustment_lines(info) if line.startswith("Prior correction auto"))
    assert "; fitted was not a candidate (not applied: " in line


def test_below_fitteds_floor_of_labels_auto_chooses_between_the_average_and_given():
    """The project where ``fitted`` finds the hidden class (above), at 59 labels: every class has more than its own
    minimum, but a model of 59 labels is not a candidate, and the summary says why."""
    from backend.scoring.label_fit import MIN_LABELS

    results, _, _ = _project(MIN_LABELS - 1, seed=0, prior=(1 / 3, 1 / 3, 1 / 3))
    verdicts, info = project_pass(results, RULE, prior_correction="auto")
    block = info["prior_correction"]
    assert block["refused"]["fitted"].startswith(f"not applied: {MIN_LABELS - 1} labels; ")
    assert set(block["agreement"]) == {"none", "given"} and block["chosen"] in ("none", "given")
    assert [r.prediction for r in verdicts] == [r.prediction for r in _candidates(results)[block["chosen"]]]
    line = next(line for line in adjustment_lines(info) if line.startswith("Prior correction auto"))
    assert f"fitted was not a candidate (not applied: {MIN_LABELS - 1} labels;" in line


def test_auto_under_the_run_minimum_reads_nothing():
    results, _, _ = _project(20, seed=4)
    verdicts, info = project_pass(results, RULE, prior_correction="auto")
    gated, _ = gate_results(results, RULE)
    assert verdicts == gated and info["prior_correction"]["note"].startswith("not applied: 20 scored items")
    lines = [line for line in adjustment_lines(info) if line.startswith("Prior correction")]
    assert lines == [f"Prior correction auto: {info['prior_correction']['note']}."]


def test_agreement_counts_the_scored_items_whose_label_is_a_class():
    def reading(predictions):
        originals = ["A"] * 8 + ["C"] * 2
        return [ItemResult(id=str(i), original=o, prediction=p, confidence=0.9, probs={p: 0.9}, flagged=o != p)
                for i, (o, p) in enumerate(zip(originals, predictions))]

    assert agreement(reading(["A"] * 10), LABELS) == {"agree": 8, "of": 10}
    assert agreement(reading(["A"] * 6 + ["B", "B"] + ["C", "C"]), LABELS) == {"agree": 8, "of": 10}
    unscored = [ItemResult(id="x", original="A", prediction=None, confidence=None, probs=None, flagged=False),
                ItemResult(id="y", original="Z", prediction="A", confidence=0.9, probs={"A": 0.9}, flagged=True)]
    assert agreement(unscored, LABELS) == {"agree": 0, "of": 0}  # neither counts
