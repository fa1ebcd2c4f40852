"""Elangovan's majority-follower expectation for k classes: expected macro F1 at agreement p_d.

The binary model (``stats_cli.expected``) credits a labeller who gives the majority label with
probability p_d; when it does not, with two classes the other label is the only choice. With k
classes the model needs a rule for *which* wrong label: here the wrong answer is spread evenly over
the other k − 1 labels (the same assumption as a random labeller, p_r = 1/k). Then for a class c with
share m_c among the majority labels: TP = m_c·p, FN = m_c(1 − p), FP = (1 − m_c)(1 − p)/(k − 1), and
the expected macro F1 is the mean of 2TP/(2TP + FP + FN) over the classes that occur. With k = 2 each
class's F1 is the binary formula of Elangovan et al. Expected accuracy stays p_d. Closed form, hence
hand-written.
"""

from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence

__all__ = ["expected_macro_f1"]


def expected_macro_f1(p_d: float, truth: Sequence[Hashable], *, n_classes: int | None = None) -> float | None:
    """Expected macro F1 of a majority-follower at ``p_d`` over the majority labels ``truth``.

    ``n_classes`` (k) defaults to the number of distinct labels in ``truth`` (at least 2). None when
    ``truth`` is empty.
    """
    if not 0.0 <= p_d <= 1.0:
        raise ValueError(f"p_d must be in [0, 1], got {p_d}")
    labels = [t for t in truth if t is not None]
    if not labels:
        return None
    counts = Counter(labels)
    k = max(2, n_classes if n_classes is not None else len(counts))
    if k < len(counts):
        raise ValueError(f"n_classes={k} is smaller than the {len(counts)} labels present")
    scores = []
    for count in counts.values():
        m = count / len(labels)
        tp, fn, fp = m * p_d, m * (1.0 - p_d), (1.0 - m) * (1.0 - p_d) / (k - 1)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn > 0 else 0.0)
    return sum(scores) / len(scores)
