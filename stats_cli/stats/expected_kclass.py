"""Elangovan's majority-follower expectation for k classes: expected macro F1 at agreement p_d.

The binary model (``stats_cli.stats.expected``) credits a labeller who gives the majority label with
probability p_d; when it does not, with two classes the other label is the only choice. With k
classes the model needs a rule for *which* wrong label: here the wrong answer is spread evenly over
the other k − 1 labels (the same assumption as a random labeller, p_r = 1/k). Then for a class c with
share m_c among the majority labels: TP = m_c·p, FN = m_c(1 − p), FP = (1 − m_c)(1 − p)/(k − 1), and
the expected macro F1 is the mean of 2TP/(2TP + FP + FN) over the task's labels that the truth holds or
the labeller would give (a label absent from the truth still draws wrong answers, F1 0, as in
scikit-learn's macro F1). k is the task's label set, never the classes a stratum happens to hold:
counting only those (the former default) printed 0.674 where a simulated labeller scores 0.492. With
k = 2 each class's F1 is the binary formula of Elangovan et al. Expected accuracy stays p_d. Closed
form, hence hand-written.
"""

from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence

__all__ = ["expected_macro_f1"]


def expected_macro_f1(p_d: float, truth: Sequence[Hashable], *, labels: Sequence[Hashable] | None = None,
                      n_classes: int | None = None) -> float | None:
    """Expected macro F1 of a majority-follower at ``p_d`` over the majority labels ``truth``.

    ``labels`` is the task's label set (k = its size); without it ``n_classes`` gives k, else the labels
    present (at least 2). None when ``truth`` is empty.
    """
    if not 0.0 <= p_d <= 1.0:
        raise ValueError(f"p_d must be in [0, 1], got {p_d}")
    present = [t for t in truth if t is not None]
    if not present:
        return None
    counts = Counter(present)
    if labels is not None:
        missing = set(counts) - set(labels)
        if missing:
            raise ValueError(f"labels not in the task's label set: {sorted(map(str, missing))[:5]}")
        k = len(labels)
    else:
        k = max(2, n_classes if n_classes is not None else len(counts))
    if k < len(counts):
        raise ValueError(f"n_classes={k} is smaller than the {len(counts)} labels present")
    shares = [counts.get(c, 0) / len(present) for c in (labels if labels is not None else counts)]
    shares += [0.0] * (k - len(shares))  # labels beyond those present (n_classes given without the label set)
    scores = []
    for m in shares:
        tp, fn, fp = m * p_d, m * (1.0 - p_d), (1.0 - m) * (1.0 - p_d) / (k - 1)
        if tp + fp + fn > 0:
            scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores) if scores else 1.0
