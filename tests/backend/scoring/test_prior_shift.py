"""Class-prior correction (Saerens et al. 2002 EM; batch calibration): tested against a known truth.

A synthetic shift whose true prior is known: three Gaussian classes, posteriors computed exactly by Bayes under
equal training priors (so the classifier is calibrated), test items drawn with another prior. EM must recover that
prior from the posteriors alone; the adjusted posteriors must predict better than the unadjusted ones.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend.scoring.ensemble import VerdictRule, verdict
from backend.scoring.prior_shift import adjust, batch_prior, check_mode, correct_results, em_prior, given_prior
from backend.scoring.results import ItemResult, MemberResult
from backend.task.generic import generic_spec

MEANS = np.array([-1.5, 0.0, 1.5])


def _shifted(prior: list[float], n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(posteriors under equal priors, true classes) of ``n`` items drawn with ``prior``."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=prior)
    x = rng.normal(MEANS[y], 1.0)
    lik = np.exp(-0.5 * (x[:, None] - MEANS[None, :]) ** 2)
    return lik / lik.sum(axis=1, keepdims=True), y


def _results(posteriors: np.ndarray, originals: list[str], rule: VerdictRule) -> list[ItemResult]:
    """One single-member result per row, its verdict read as the engine reads it."""
    labels = list(rule.spec.labels)
    out = []
    for i, (row, original) in enumerate(zip(posteriors, originals)):
        probs = dict(zip(labels, map(float, row)))
        d = verdict([probs], ["local:m"], original, rule)
        out.append(ItemResult(id=str(i), original=original, prediction=d.prediction, confidence=d.confidence,
                              probs=d.probs, flagged=d.flagged, members=(MemberResult("local:m/p@v1", probs=probs),)))
    return out


@pytest.mark.parametrize("prior", [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [1 / 3, 1 / 3, 1 / 3]])
def test_em_recovers_a_known_prior_from_calibrated_posteriors(prior):
    post, y = _shifted(prior, 20000, seed=1)
    fit = em_prior(post)
    empirical = np.bincount(y, minlength=3) / len(y)
    assert fit.converged
    assert np.max(np.abs(fit.prior - empirical)) < 0.03  # sampling and EM error, on 20,000 items
    naive = post.mean(axis=0)  # the unadjusted mean answer is pulled towards equal classes
    assert np.max(np.abs(fit.prior - empirical)) < np.max(np.abs(naive - empirical)) or prior[0] == 1 / 3


def test_adjusted_posteriors_predict_a_shifted_set_better():
    post, y = _shifted([0.8, 0.15, 0.05], 5000, seed=2)
    fit = em_prior(post)
    before = np.mean(post.argmax(axis=1) == y)
    after = np.mean(fit.posteriors.argmax(axis=1) == y)
    assert after > before
    assert np.allclose(fit.posteriors.sum(axis=1), 1.0)


def test_adjust_to_the_same_prior_changes_nothing_and_bad_input_is_refused():
    post, _ = _shifted([0.5, 0.3, 0.2], 50, seed=3)
    assert np.allclose(adjust(post, [0.2, 0.3, 0.5], [0.2, 0.3, 0.5]), post)
    with pytest.raises(ValueError):
        em_prior([[0.5, 0.6]])
    with pytest.raises(ValueError):
        em_prior(post, train_prior=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        check_mode("sometimes")


def test_batch_calibration_removes_a_lean_the_member_shows_on_every_item():
    post, _ = _shifted([1 / 3, 1 / 3, 1 / 3], 3000, seed=4)
    leaning = adjust(post, [1 / 3] * 3, [0.6, 0.2, 0.2])  # the same judge leaning to class 0
    fit = batch_prior(leaning)
    assert fit.prior[0] > 0.4  # the lean shows in the mean answer (equal classes: 1/3)
    assert abs(fit.posteriors.argmax(axis=1).tolist().count(0) / 3000 - 1 / 3) < \
        abs(leaning.argmax(axis=1).tolist().count(0) / 3000 - 1 / 3)


def test_correct_results_re_reads_every_verdict_from_the_corrected_members():
    labels = ["A", "B", "C"]
    rule = VerdictRule(generic_spec(labels=labels, fields=["text"]))
    post, y = _shifted([0.7, 0.2, 0.1], 200, seed=5)
    results = _results(post, [labels[c] for c in y], rule)
    same, info = correct_results(results, rule, mode="none")
    assert same == results and info["priors"] == {}
    corrected, info = correct_results(results, rule, mode="em")
    fit = em_prior(post)
    assert info["priors"]["local:m/p@v1"]["A"] == pytest.approx(fit.prior[0], abs=1e-6)
    for r, row in zip(corrected, fit.posteriors):
        assert r.probs["A"] == pytest.approx(row[0])
    assert sum(r.flagged for r in corrected) < sum(r.flagged for r in results)  # fewer false flags on true labels


def test_given_correction_moves_a_leaning_judge_to_the_labels_shares_not_to_equal_classes():
    """A project whose classes are 60/25/15, a judge that under-answers class 1 (as the real judge does "neutral" on
    SNLI): ``given`` brings the share of each predicted class near the labels' shares, ``batch`` towards a third."""
    true_prior = [0.6, 0.25, 0.15]
    post, y = _shifted(true_prior, 4000, seed=6)  # calibrated posteriors under equal training priors
    leaning = adjust(post, [1 / 3] * 3, [0.45, 0.1, 0.45])  # the same judge, reluctant to answer class 1
    given = [int(c) for c in y]
    fit = given_prior(leaning, given)
    shares = np.bincount(fit.posteriors.argmax(axis=1), minlength=3) / len(y)
    before = np.bincount(leaning.argmax(axis=1), minlength=3) / len(y)
    batch = np.bincount(batch_prior(leaning).posteriors.argmax(axis=1), minlength=3) / len(y)
    assert before[1] < 0.15  # the lean: class 1 nearly never answered (true share 0.25)
    assert abs(shares[1] - 0.25) < abs(before[1] - 0.25) and abs(shares[1] - 0.25) < 0.08
    assert abs(shares[0] - 0.6) < abs(batch[0] - 0.6)  # batch pulls the majority class towards a third
    accuracy = (fit.posteriors.argmax(axis=1) == y).mean()
    assert accuracy > (leaning.argmax(axis=1) == y).mean()


def test_given_correction_counts_labels_only_and_refuses_a_bad_index():
    post = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    fit = given_prior(post, [0, 0, 0, -1])  # three labelled 0, one without a label among the classes
    assert fit.posteriors[0] == pytest.approx([0.8, 0.2])  # (3 + 1) / (3 + 2) against (0 + 1) / (3 + 2)
    with pytest.raises(ValueError):
        given_prior(post, [0, 0, 2, 0])
    with pytest.raises(ValueError):
        given_prior(post, [0, 0])


def test_correct_results_given_reads_each_items_label_and_skips_one_outside_the_classes():
    labels = ["A", "B", "C"]
    rule = VerdictRule(generic_spec(labels=labels, fields=["text"]))
    post, y = _shifted([0.5, 0.3, 0.2], 300, seed=7)
    leaning = adjust(post, [1 / 3] * 3, [0.45, 0.1, 0.45])
    # the first item's label is outside the classes
    results = _results(leaning, ["not-a-class"] + [labels[c] for c in y[1:]], rule)
    corrected, info = correct_results(results, rule, mode="given")
    assert info["mode"] == "given"
    fit = given_prior(leaning, [-1] + [int(c) for c in y[1:]])
    for r, row in zip(corrected, fit.posteriors):
        assert r.probs["B"] == pytest.approx(row[1])
    predicted_b = sum(r.prediction == "B" for r in corrected)
    assert predicted_b > sum(r.prediction == "B" for r in results)


def test_the_summary_says_which_way_each_correction_moves_the_answers():
    from backend.summaries.score_summary import adjustment_lines

    def line(mode):
        return [x for x in adjustment_lines({"prior_correction": {"mode": mode, "priors": {"a": {}, "b": {}}}})
                if x.startswith("Prior correction")]

    assert line("given") == ["Prior correction given: each judge's answers re-weighted by the class prior read from "
                             "its own answers over the run towards the class shares of the run's own labels "
                             "(2 judges)."]
    assert "towards equal classes" in line("batch")[0] and "towards" not in line("em")[0]
    assert line("none") == []


def test_a_run_too_small_for_a_mean_answer_is_not_corrected_and_says_why():
    from backend.scoring.project_pass import MIN_CORRECTED_ITEMS, project_pass

    labels = ["A", "B", "C"]
    rule = VerdictRule(generic_spec(labels=labels, fields=["text"]))
    post, y = _shifted([0.5, 0.3, 0.2], MIN_CORRECTED_ITEMS, seed=8)
    leaning = adjust(post, [1 / 3] * 3, [0.45, 0.1, 0.45])
    results = _results(leaning, [labels[c] for c in y], rule)
    small, info = project_pass(results[:-1], rule, prior_correction="given")
    assert small == results[:-1] and info["prior_correction"]["note"].startswith(
        f"not applied: {MIN_CORRECTED_ITEMS - 1} scored items")
    enough, info = project_pass(results, rule, prior_correction="given")
    assert "note" not in info["prior_correction"] and info["prior_correction"]["mode"] == "given"
    assert [r.probs for r in enough] != [r.probs for r in results]
