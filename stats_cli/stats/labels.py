"""Label normalisation, order and tie rule: one home in :mod:`backend.common.labels`, shared with ``label-audit``."""

from backend.api import (break_tie, label_problem, label_sort_key, label_value, labels_are_numeric, majority_label,
                            normalize_label, sort_labels)

__all__ = ["label_problem", "normalize_label", "label_sort_key", "sort_labels", "labels_are_numeric", "label_value", "break_tie",
           "majority_label"]
