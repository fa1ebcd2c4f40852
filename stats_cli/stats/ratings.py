"""The ratings table: items × annotators, one category code per cell, -1 where a rating is missing.

Every agreement and aggregation statistic starts from this table, built from long-format rows
(item, annotator, label) or wide rows (one column per annotator); a file is read by
:func:`stats_cli.sources.ratings_file.read_ratings`. Bad rows are kept as
:class:`~stats_cli.stats.row_error.RowError` with their line number and skipped, so one bad line never
spoils a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from stats_cli.stats.labels import label_problem, label_value, labels_are_numeric, normalize_label, sort_labels
from backend.api import Record as Row
from stats_cli.stats.row_error import RowError

__all__ = ["RatingsTable", "ratings_from_long", "ratings_from_wide"]


@dataclass
class RatingsTable:
    """Ratings of ``items`` by ``annotators`` over ``categories`` (natural label order).

    ``codes[i, j]`` is the index into ``categories`` of annotator ``j``'s label for item ``i``,
    or -1 when annotator ``j`` did not rate item ``i``. ``errors`` holds skipped input rows.
    """

    items: list[str]
    annotators: list[str]
    categories: list[str]
    codes: np.ndarray
    errors: list[RowError] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.codes = np.asarray(self.codes, dtype=np.int64)
        if self.codes.shape != (len(self.items), len(self.annotators)):
            raise ValueError(
                f"codes shape {self.codes.shape} != (items, annotators) "
                f"({len(self.items)}, {len(self.annotators)})"
            )
        if self.codes.size and (self.codes.min() < -1 or self.codes.max() >= len(self.categories)):
            raise ValueError("codes must be -1 (missing) or an index into categories")

    @classmethod
    def from_codes(cls, codes: Any, *, categories: Sequence[str] | None = None) -> "RatingsTable":
        """Build from an integer matrix (items × annotators, -1 = missing); names are generated."""
        codes = np.asarray(codes, dtype=np.int64)
        if codes.ndim != 2:
            raise ValueError("codes must be a 2-D items × annotators matrix")
        if categories is None:
            top = int(codes.max()) + 1 if codes.size else 0
            categories = [str(c) for c in range(max(top, 0))]
        return cls(
            items=[str(i) for i in range(codes.shape[0])],
            annotators=[f"a{j}" for j in range(codes.shape[1])],
            categories=list(categories),
            codes=codes,
        )

    @property
    def n_ratings(self) -> int:
        return int((self.codes >= 0).sum())

    def counts(self) -> np.ndarray:
        """Items × categories matrix: how many annotators put item i in category k.

        One ``bincount`` over every cell, missing ratings landing in a dropped extra column, so it
        stays linear and allocation-light on millions of items.
        """
        n_items, n_cat = self.codes.shape[0], len(self.categories)
        width = n_cat + 1
        flat = (np.arange(n_items, dtype=np.int64)[:, None] * width + (self.codes + 1)).ravel()
        return np.bincount(flat, minlength=n_items * width).reshape(n_items, width)[:, 1:]

    def numeric(self) -> bool:
        """True when every category is a number (so interval statistics and medians apply)."""
        return bool(self.categories) and labels_are_numeric(self.categories)

    def category_values(self) -> np.ndarray:
        """Numeric value of each category; ``ValueError`` when labels are not numbers."""
        return np.array([label_value(c) for c in self.categories], dtype=float)

    def with_categories(self, labels: Iterable[Any]) -> "RatingsTable":
        """Copy whose label set also holds ``labels`` (declared but perhaps never used), in natural order.

        Chance-corrected coefficients depend on the label set: a binary task where everyone chose
        "0" still has two labels, which AC1 and positive/negative agreement need to know.
        """
        extra = [label for label in (normalize_label(x) for x in labels) if label is not None]
        categories = sort_labels([*self.categories, *extra])
        remap = np.array([categories.index(c) for c in self.categories] + [-1], dtype=np.int64)
        return RatingsTable(list(self.items), list(self.annotators), categories, remap[self.codes], list(self.errors))

    def drop_unrated(self) -> "RatingsTable":
        """Copy without items and annotators that have no rating at all."""
        rated = self.codes >= 0
        keep_i = rated.any(axis=1)
        keep_j = rated.any(axis=0)
        return RatingsTable(
            items=[x for x, k in zip(self.items, keep_i) if k],
            annotators=[x for x, k in zip(self.annotators, keep_j) if k],
            categories=list(self.categories),
            codes=self.codes[np.ix_(keep_i, keep_j)],
            errors=list(self.errors),
        )


def _build(
    cells: dict[tuple[str, str], str], items: list[str], annotators: list[str], errors: list[RowError]
) -> RatingsTable:
    categories = sort_labels(cells.values())
    cat_index = {c: k for k, c in enumerate(categories)}
    item_index = {x: i for i, x in enumerate(items)}
    ann_index = {x: j for j, x in enumerate(annotators)}
    codes = np.full((len(items), len(annotators)), -1, dtype=np.int64)
    for (item, annotator), label in cells.items():
        codes[item_index[item], ann_index[annotator]] = cat_index[label]
    return RatingsTable(items, annotators, categories, codes, sorted(errors, key=lambda e: e.line))


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (list, tuple, dict)) or "\x00" in str(value):
        return None  # an id that is a list, an object or holds a NUL byte is no id: the row is reported

    text = str(value).strip()
    return text or None


def ratings_from_long(
    rows: Iterable[Row],
    *,
    item_col: str = "item",
    annotator_col: str = "annotator",
    label_col: str = "label",
    errors: Sequence[RowError] = (),
    numeric_only: bool = False,
) -> RatingsTable:
    """One row per (item, annotator, label). A second label for the same pair is an error (first kept).

    With ``numeric_only`` a non-numeric label is an error (for interval statistics and medians).
    """
    errs = list(errors)
    cells: dict[tuple[str, str], str] = {}
    first_line: dict[tuple[str, str], int] = {}
    items: dict[str, None] = {}
    annotators: dict[str, None] = {}
    for row in rows:
        item = _text(row.data.get(item_col))
        annotator = _text(row.data.get(annotator_col))
        missing = [c for c, v in ((item_col, item), (annotator_col, annotator)) if v is None]
        if label_col not in row.data:
            missing.append(label_col)
        if missing:
            errs.append(RowError(row.line, f"missing {', '.join(repr(m) for m in missing)}"))
            continue
        assert item is not None and annotator is not None
        problem = label_problem(row.data.get(label_col))
        if problem is not None:
            errs.append(RowError(row.line, f"label {problem}"))
            continue
        label = normalize_label(row.data.get(label_col))
        items.setdefault(item)
        annotators.setdefault(annotator)
        if label is None:  # an explicit blank rating is a missing rating, not an error
            continue
        if numeric_only and not labels_are_numeric([label]):
            errs.append(RowError(row.line, f"label {label!r} is not a number"))
            continue
        key = (item, annotator)
        if key in cells:
            errs.append(
                RowError(row.line, f"duplicate rating of item {item!r} by {annotator!r} "
                                   f"(first on line {first_line[key]}); kept the first")
            )
            continue
        cells[key] = label
        first_line[key] = row.line
    return _build(cells, list(items), list(annotators), errs)


def ratings_from_wide(
    rows: Iterable[Row],
    *,
    columns: Sequence[str],
    item_col: str = "item",
    annotator_cols: Sequence[str] | None = None,
    errors: Sequence[RowError] = (),
    numeric_only: bool = False,
) -> RatingsTable:
    """One row per item, one column per annotator; blank cells are missing ratings.

    Without ``item_col`` in the file the item id is the row's line number. With ``numeric_only``
    a non-numeric cell is reported (line and column) and treated as missing.
    """
    errs = list(errors)
    has_item = item_col in columns
    annotators = list(annotator_cols) if annotator_cols else [c for c in columns if c != item_col]
    if not annotators:
        raise ValueError("wide format needs at least one annotator column")
    cells: dict[tuple[str, str], str] = {}
    items: list[str] = []
    seen: dict[str, int] = {}
    for row in rows:
        item = _text(row.data.get(item_col)) if has_item else f"line{row.line}"
        if item is None:
            errs.append(RowError(row.line, f"missing {item_col!r}"))
            continue
        if item in seen:
            errs.append(RowError(row.line, f"duplicate item {item!r} (first on line {seen[item]}); kept the first"))
            continue
        seen[item] = row.line
        items.append(item)
        for annotator in annotators:
            problem = label_problem(row.data.get(annotator))
            if problem is not None:
                errs.append(RowError(row.line, f"{annotator!r}: label {problem}; treated as missing"))
                continue
            label = normalize_label(row.data.get(annotator))
            if label is not None and numeric_only and not labels_are_numeric([label]):
                errs.append(RowError(row.line, f"{annotator!r}: label {label!r} is not a number; treated as missing"))
                continue
            if label is not None:
                cells[(item, annotator)] = label
    return _build(cells, items, annotators, errs)
