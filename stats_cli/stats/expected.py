"""Expected scores of a labeller who follows the majority label with probability p_d (Elangovan 2026).

When ground truth is itself uncertain, even an expert who agrees with the majority only p_d of the
time cannot score above what p_d allows. The coin-toss model (their eq. 2 and 14):

* accuracy = recall = p_d
* precision = m·p_d / (m·p_d + (1 − m)(1 − p_d)/(L − 1)), m = share of positives, L classes: a wrong
  answer goes to one of the L − 1 other labels evenly, so only 1/(L − 1) of the negatives' misses land
  on the positive class (with L = 2 this is their eq. 2; without the term a uniform labeller over 4
  classes at m = 0.25 got precision 0.10 instead of 0.25)
* F1 = 2·precision·recall / (precision + recall)
* a random labeller over L classes has p_d = p_r = 1/L
* the chance of scoring at least r of N is the binomial tail P(X ≥ r), X ~ Bin(N, p_d) (Table 1)

Closed forms, so hand-written; the binomial tail is scipy's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from scipy.stats import binom

__all__ = ["ExpectedScores", "expected_scores", "random_labeller", "prob_at_least"]


def _check_probability(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")


@dataclass(frozen=True)
class ExpectedScores:
    """Expected accuracy, precision, recall and F1 at agreement ``p_d`` and positive ratio ``m``."""

    p_d: float
    m: float
    accuracy: float
    precision: float
    recall: float
    f1: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def expected_scores(p_d: float, m: float, *, n_classes: int = 2) -> ExpectedScores:
    """Scores of a labeller who gives the majority label with probability ``p_d`` (eq. 2, 14) over L classes."""
    _check_probability("p_d", p_d)
    _check_probability("positive ratio m", m)
    if n_classes < 2:
        raise ValueError(f"a labeller needs at least 2 classes, got {n_classes}")
    true_pos = m * p_d
    false_pos = (1.0 - m) * (1.0 - p_d) / (n_classes - 1)
    precision = true_pos / (true_pos + false_pos) if true_pos + false_pos > 0 else 0.0
    recall = p_d
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return ExpectedScores(p_d=p_d, m=m, accuracy=p_d, precision=precision, recall=recall, f1=f1)


def random_labeller(m: float, *, n_classes: int = 2) -> ExpectedScores:
    """The random baseline: p_r = 1 / L for L classes."""
    if n_classes < 2:
        raise ValueError(f"a random labeller needs at least 2 classes, got {n_classes}")
    return expected_scores(1.0 / n_classes, m, n_classes=n_classes)


def prob_at_least(n: int, r: int, p_d: float) -> float:
    """P(score ≥ r) for N = ``n`` items each right with probability ``p_d`` (Elangovan Table 1)."""
    _check_probability("p_d", p_d)
    if n < 1 or not 0 <= r <= n:
        raise ValueError(f"need 1 ≤ n and 0 ≤ r ≤ n, got n={n}, r={r}")
    return float(binom.sf(r - 1, n, p_d))
