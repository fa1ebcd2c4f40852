"""The classifier behind ``cleanlab:tfidf-logreg`` on real labelled text: signal, refusal, cleanlab's ranking.

Real scikit-learn and cleanlab on ChaosNLI's premise/hypothesis pairs with the 100-vote majority as the
clean label and planted noise (fixed seed). Bounds are well below what was measured (AP 0.19 at 10 %
noise, AUC 0.69; bench/bench_detection.py), and well above chance (AP = the noise rate, AUC 0.5).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from backend.confident.classifier import UNLABELLED, out_of_fold_probs, shortfall
from backend.confident.issues import label_issue_ranking
from tests.backend.confident.data import chaosnli_rows, planted

CLASSES = ("entailment", "neutral", "contradiction")


def test_out_of_fold_probabilities_rank_planted_errors_above_chance():
    rows = chaosnli_rows()
    noisy, wrong = planted([r["clean"] for r in rows], CLASSES, rate=0.1, seed=3)
    labels = [CLASSES.index(y) for y in noisy]
    probs = out_of_fold_probs([{"premise": r["premise"], "hypothesis": r["hypothesis"]} for r in rows], labels, CLASSES)
    assert probs.shape == (len(rows), 3)
    assert np.allclose(probs.sum(axis=1), 1.0)
    score = 1.0 - probs[np.arange(len(rows)), labels]
    assert average_precision_score(wrong, score) > 1.4 * wrong.mean()
    assert roc_auc_score(wrong, score) > 0.6
    issues = label_issue_ranking(labels, probs)  # cleanlab's own pruning: more precise than picking at random
    assert issues and wrong[issues].mean() > 1.4 * wrong.mean()


def test_real_disagreements_are_found_above_chance():
    rows = chaosnli_rows()
    wrong = np.array([r["original"] != r["clean"] for r in rows])
    assert wrong.sum() == 378  # the README's count: the data is the one described
    labels = [CLASSES.index(r["original"]) for r in rows]
    probs = out_of_fold_probs([{"premise": r["premise"], "hypothesis": r["hypothesis"]} for r in rows], labels, CLASSES)
    score = 1.0 - probs[np.arange(len(rows)), labels]
    assert roc_auc_score(wrong, score) > 0.53


def test_unlabelled_rows_are_predicted_not_learnt_from():
    from backend.demo.tickets import LABELS, ticket_records

    records = ticket_records(n=90, error_rate=0.0, seed=1)
    labels = [LABELS.index(r["label"]) for r in records]
    labels[:5] = [UNLABELLED] * 5
    probs = out_of_fold_probs([{"text": r["text"]} for r in records], labels, LABELS)
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert (probs[:5].argmax(axis=1) == [LABELS.index(r["label"]) for r in records[:5]]).mean() >= 0.6


def test_shortfall_names_each_small_class_and_the_minimum():
    reason = shortfall([0] * 30 + [1] * 4, ("0", "1", "2"), minimum=20)
    assert "'1' has 4" in reason and "'2' has 0" in reason and "minimum is 20" in reason and "'0'" not in reason
    assert shortfall([0] * 20 + [1] * 20, ("0", "1"), minimum=20) is None


def test_a_class_with_one_item_cannot_be_cross_validated():
    with pytest.raises(ValueError, match="at least two"):
        out_of_fold_probs([{"text": "a"}, {"text": "b"}, {"text": "c"}], [0, 0, 1], ("x", "y"))


def test_cleanlab_s_ranking_forks_no_process():
    """cleanlab forks a multiprocessing pool unless told n_jobs=1; a fork from a process with other threads (a
    worker's, pyarrow's jemalloc thread) once left the child waiting on a copied lock for the whole test timeout.
    The ranking runs in a child interpreter that counts forks (os.register_at_fork)."""
    import subprocess
    import sys

    code = """
import os, numpy as np
from backend.confident.issues import label_issue_ranking
forks = []
os.register_at_fork(before=lambda: forks.append(1))
rng = np.random.default_rng(0)
probs = rng.dirichlet([1, 1, 1], size=300)
labels = rng.integers(0, 3, size=300)
label_issue_ranking(list(labels), probs)
print("forks", len(forks))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[3]))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["forks", "0"]
