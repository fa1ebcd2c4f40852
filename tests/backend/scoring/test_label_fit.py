"""``fitted``: the judges' answers re-read by a model of the project's labels, cross-fitted by item id.

Synthetic judges whose truth is known: three classes; two judges that nearly never answer class 1 and one that
reads it (as on SNLI, where three prompts of four under-answer "neutral" and one reads it); 10 % of the labels
flipped. The average of the judges under-answers class 1; the fitted model must recover it from the one judge
that sees it, never let an item's own label read its own answer, and refuse labels too thin to fit.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend.scoring.ensemble import VerdictRule, verdict
from backend.scoring.label_fit import FOLDS, MIN_LABELS, MIN_LABELS_PER_CLASS, fit_to_labels, fold_of
from backend.scoring.prior_shift import correct_results
from backend.scoring.project_pass import project_pass
from backend.scoring.results import ItemResult, MemberResult
from backend.task.generic import generic_spec

LABELS = ["A", "B", "C"]
RULE = VerdictRule(generic_spec(labels=LABELS, fields=["text"]))
JUDGES = ("local:m/blind-1@v1", "local:m/blind-2@v1", "local:m/reads-b@v1")


def _answers(y: np.ndarray, rng: np.random.Generator) -> list[list[np.ndarray]]:
    """Per item, the three judges' distributions: two give class 1 a tenth of what they give the others."""
    out = []
    for c in y:
        rows = []
        for j in range(3):
            logits = rng.normal(0.0, 1.0, 3)
            logits[c] += 2.0
            if j < 2:
                logits[1] -= 4.0  # blind to class 1: its mass is cut whatever the item is
            p = np.exp(logits)
            rows.append(p / p.sum())
        out.append(rows)
    return out


def _project(n: int, *, seed: int = 0, flip: float = 0.1, prior=(0.4, 0.3, 0.3)):
    """(results as the engine reads them, true classes, the labels given)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=list(prior))
    given = y.copy()
    flipped = rng.random(n) < flip
    given[flipped] = (y[flipped] + rng.integers(1, 3, flipped.sum())) % 3
    results = []
    for i, (rows, g) in enumerate(zip(_answers(y, rng), given)):
        members = tuple(MemberResult(judge, probs=dict(zip(LABELS, map(float, row))))
                        for judge, row in zip(JUDGES, rows))
        d = verdict([m.probs for m in members], ["local:m"] * 3, LABELS[g], RULE)
        results.append(ItemResult(id=f"item-{i}", original=LABELS[g], prediction=d.prediction,
                                  confidence=d.confidence, probs=d.probs, flagged=d.flagged, members=members))
    return results, y, given


def _predicted(results) -> np.ndarray:
    return np.array([LABELS.index(r.prediction) for r in results])


def test_the_fitted_model_finds_the_class_most_judges_cannot_see():
    results, y, given = _project(300)
    fitted, info = fit_to_labels(results, RULE)
    before, after = _predicted(results), _predicted(fitted)
    true_b = (y == 1).sum()
    assert (before == 1).sum() < 0.5 * true_b  # the average under-answers class 1
    assert 1 / 1.5 < (after == 1).sum() / true_b < 1.5
    assert (after == y).mean() > (before == y).mean() + 0.05
    assert info["mode"] == "fitted" and info["taught"] == 300 and info["members"] == sorted(JUDGES)
    wrong = given != y  # the flags now find more of the flipped labels than they wrongly raise
    flagged = np.array([r.flagged for r in fitted])
    assert flagged[wrong].mean() > 0.5 and wrong[flagged].mean() > 0.5
    assert [m.probs for r in fitted for m in r.members] == [m.probs for r in results for m in r.members]


def test_an_items_own_label_never_reads_its_own_answer():
    results, _, _ = _project(120, seed=1)
    fitted, _ = fit_to_labels(results, RULE)
    i = 7
    other = LABELS[(LABELS.index(results[i].original) + 1) % 3]
    changed = [r if k != i else ItemResult(**{**r.__dict__, "original": other}) for k, r in enumerate(results)]
    refitted, _ = fit_to_labels(changed, RULE)
    assert refitted[i].probs == pytest.approx(fitted[i].probs)  # its fold's model never saw its label
    moved = [k for k in range(len(results)) if refitted[k].probs != pytest.approx(fitted[k].probs)]
    assert moved and all(fold_of(results[k].id) != fold_of(results[i].id) for k in moved)


def test_the_folds_follow_the_item_ids_not_the_order_of_the_run():
    results, _, _ = _project(90, seed=2)
    fitted, _ = fit_to_labels(results, RULE)
    shuffled, _ = fit_to_labels(list(reversed(results)), RULE)
    by_id = {r.id: r.probs for r in shuffled}
    assert all(by_id[r.id] == pytest.approx(r.probs) for r in fitted)
    assert {fold_of(f"item-{i}") for i in range(90)} == set(range(FOLDS))


def test_too_few_labels_of_a_class_leave_the_verdicts_as_they_were_and_say_why():
    results, _, given = _project(90, seed=3)
    b = [i for i, g in enumerate(given) if g == 1]
    keep = [r for i, r in enumerate(results) if i not in set(b[MIN_LABELS_PER_CLASS - 1:])]
    same, info = fit_to_labels(keep, RULE)
    assert same == keep
    assert info["note"] == (f"not applied: B has {MIN_LABELS_PER_CLASS - 1}; a model of the labels needs at least "
                            f"{MIN_LABELS_PER_CLASS} labels of every class ({FOLDS} folds)")


def test_too_few_labels_in_all_leave_the_verdicts_as_they_were_and_say_why():
    """Every class well above its own minimum, but too few labels in all: a fold's model would learn the sample."""
    results, _, given = _project(MIN_LABELS - 1, seed=3, prior=(1 / 3, 1 / 3, 1 / 3))
    assert min(np.bincount(given, minlength=3)) >= MIN_LABELS_PER_CLASS
    same, info = fit_to_labels(results, RULE)
    assert same == results
    assert info["note"] == (f"not applied: {MIN_LABELS - 1} labels; a model of the labels needs at least "
                            f"{MIN_LABELS} to learn from, or it learns the sample more than the judges")
    _, info = fit_to_labels(_project(MIN_LABELS, seed=3, prior=(1 / 3, 1 / 3, 1 / 3))[0], RULE)
    assert "note" not in info and info["taught"] == MIN_LABELS


def test_items_without_a_verdict_or_a_label_among_the_classes_are_kept_and_never_taught_from():
    results, _, _ = _project(100, seed=4)
    results[0] = ItemResult(id="item-0", original="A", prediction=None, confidence=None, probs=None, flagged=False)
    results[1] = ItemResult(**{**results[1].__dict__, "original": "not-a-class"})
    fitted, info = fit_to_labels(results, RULE)
    assert fitted[0] == results[0]
    assert info["taught"] == 98 and fitted[1].prediction in LABELS  # read, as any item, but never a teacher


def test_a_judge_the_health_gate_left_out_is_not_read():
    results, _, _ = _project(100, seed=5)
    fitted, info = fit_to_labels(results, RULE, left_out=[JUDGES[2]])
    assert info["members"] == sorted(JUDGES[:2])
    assert [r.probs for r in fitted] != [r.probs for r in fit_to_labels(results, RULE)[0]]


def test_the_project_pass_and_correct_results_run_it_by_name():
    results, _, _ = _project(100, seed=6)
    direct, _ = fit_to_labels(results, RULE)
    by_name, fit = correct_results(results, RULE, mode="fitted")
    passed, info = project_pass(results, RULE, prior_correction="fitted")
    assert [r.probs for r in by_name] == [r.probs for r in direct] == [r.probs for r in passed]
    assert fit["mode"] == info["prior_correction"]["mode"] == "fitted"


def test_the_summary_says_what_the_fit_read_and_why_it_was_not_applied():
    from backend.summaries.score_summary import adjustment_lines

    results, _, _ = _project(100, seed=7)
    _, info = project_pass(results, RULE, prior_correction="fitted")
    assert [x for x in adjustment_lines(info) if x.startswith("Prior correction")] == [
        "Prior correction fitted: each verdict re-read by a model of the run's own labels on the answers of 3 "
        "judges, fitted on the other 4 of 5 folds (an item's label never reads its own answer)."]
    _, small = project_pass(results[:20], RULE, prior_correction="fitted")
    assert small["prior_correction"]["note"] == ("not applied: 20 scored items; a correction fits a model of the "
                                                 "run's labels and needs at least 30")


def test_a_confident_learning_member_alone_is_not_fitted_again():
    """cleanlab's member is already a cross-validated model of the labels: a second model over its answers is not
    fitted (beside judges it is read as one more)."""
    results, _, _ = _project(100, seed=8)
    alone = [ItemResult(**{**r.__dict__, "members": (MemberResult("cleanlab:tfidf-logreg/features@v1",
                                                                  probs=r.members[2].probs),)}) for r in results]
    same, info = fit_to_labels(alone, RULE)
    assert same == alone and info["note"].startswith("not applied: every member is already a model of the labels")
    beside = [ItemResult(**{**r.__dict__, "members": (*r.members, a.members[0])}) for r, a in zip(results, alone)]
    fitted, info = fit_to_labels(beside, RULE)
    assert "note" not in info and "cleanlab:tfidf-logreg/features@v1" in info["members"]
