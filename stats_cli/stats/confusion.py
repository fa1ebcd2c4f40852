"""Which labels get mistaken for which: the k-class view of label errors.

For a k-class task one error rate hides where the errors are. Three tables answer that: the
confusion of original labels against gold labels (scikit-learn's ``confusion_matrix``, rows = the
original label, columns = the gold label), per original class the number of reviewed items and of
wrong labels with an exact Clopper-Pearson interval (:func:`stats_cli.stats.bounds.clopper_pearson`), and
the experts' agreement specific to each category (the k-class form of positive agreement,
:func:`stats_cli.stats.agreement.specific_agreement`: for two raters 2a/(2a+b+c) with the category as
"positive").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from sklearn.metrics import confusion_matrix

from stats_cli.stats.agreement import specific_agreement
from stats_cli.stats.bounds import clopper_pearson
from stats_cli.stats.ratings import RatingsTable

__all__ = ["ClassErrors", "label_confusion", "per_class_errors", "category_agreement"]


@dataclass(frozen=True)
class ClassErrors:
    """Reviewed items whose original label is ``label``, how many were wrong, and the exact interval."""

    label: str
    reviewed: int
    errors: int
    rate: float | None
    cp_low: float | None
    cp_high: float | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def label_confusion(original: Sequence[str], gold: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """k × k counts, row = original label, column = gold label, in ``labels`` order."""
    if len(original) != len(gold):
        raise ValueError("original and gold labels must pair up")
    if not original:
        return np.zeros((len(labels), len(labels)), dtype=int)
    return confusion_matrix(list(original), list(gold), labels=list(labels))


def per_class_errors(original: Sequence[str], gold: Sequence[str], labels: Sequence[str], *,
                     confidence: float = 0.95) -> list[ClassErrors]:
    """Per original label: reviewed count, wrong labels, rate and Clopper-Pearson bounds (None when n = 0)."""
    matrix = label_confusion(original, gold, labels)
    out = []
    for i, label in enumerate(labels):
        n = int(matrix[i].sum())
        k = n - int(matrix[i, i])
        if n == 0:
            out.append(ClassErrors(label, 0, 0, None, None, None))
            continue
        low, high = clopper_pearson(k, n, confidence=confidence)
        out.append(ClassErrors(label, n, k, k / n, low, high))
    return out


def category_agreement(table: RatingsTable, labels: Sequence[str]) -> dict[str, float | None]:
    """Agreement specific to each label (None when no pairable rating uses it)."""
    counts = table.counts()
    out: dict[str, float | None] = {}
    for label in labels:
        if label not in table.categories:
            out[label] = None
            continue
        out[label] = specific_agreement(counts, table.categories.index(label)).value
    return out
