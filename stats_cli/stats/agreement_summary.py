"""Every agreement figure for one ratings table, as ``audit-stats agreement`` and the report show it.

One call gives raw agreement beside κ, α and AC1 (and, at the ordinal or interval level, weighted κ),
and for binary labels the positive- and negative-class agreement that separates real disagreement from
the kappa paradox. Undefined
figures are None in JSON with their reason under ``undefined``. Two raters who gave the same answer on every
item they rated (at least :data:`DUPLICATE_MIN_ITEMS` items, the same items) are named in a note and under
``duplicated_raters``: on DialSummEval's coherence raters 2 and 3 do so (κ = 1.0), a copied column that lifts
every coefficient, not agreement between two people.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from stats_cli.stats.agreement import (
    Level,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    observed_agreement,
    specific_agreement,
    weighted_kappa,
)
from stats_cli.stats.coefficient import Coefficient
from stats_cli.stats.labels import labels_are_numeric, normalize_label
from stats_cli.stats.ratings import RatingsTable

__all__ = ["AgreementSummary", "agreement_summary", "POSITIVE_NAMES", "pick_positive", "duplicated_raters",
           "DUPLICATE_MIN_ITEMS"]

#: Items two raters must share before identical answers on all of them look like a copied column rather than
#: luck (two careful raters on a handful of clear items may well agree everywhere).
DUPLICATE_MIN_ITEMS = 10

POSITIVE_NAMES = ("1", "true", "yes", "y", "positive", "pos", "consistent")
COEFFICIENTS = ("pct_agreement", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "cohen_kappa",
                "weighted_kappa_linear", "weighted_kappa_quadratic", "positive_agreement", "negative_agreement")


@dataclass(frozen=True)
class AgreementSummary:
    """Counts and coefficients; ``positive_label`` is set only for binary data."""

    n_items: int
    n_annotators: int
    n_ratings: int
    n_pairable_items: int
    level: str
    categories: tuple[str, ...]
    coefficients: dict[str, Coefficient]
    positive_label: str | None = None
    negative_label: str | None = None
    notes: tuple[str, ...] = field(default=())
    #: ratings per category (same order as ``categories``), over the pairable items
    category_ratings: tuple[int, ...] = field(default=())
    #: (rater, rater, items) for every pair with identical answers on every item (see :func:`duplicated_raters`)
    duplicated: tuple[tuple[str, str, int], ...] = field(default=())

    @property
    def rare_label(self) -> str | None:
        """The binary category with the fewest ratings (the positive label on a tie): the class whose
        agreement tells the kappa paradox from real disagreement, whichever label is called positive."""
        if self.positive_label is None or len(self.category_ratings) != len(self.categories):
            return None
        by_label = dict(zip(self.categories, self.category_ratings))
        if by_label[self.negative_label] < by_label[self.positive_label]:
            return self.negative_label
        return self.positive_label

    @property
    def rare_agreement(self) -> float | None:
        """Specific agreement on :attr:`rare_label` (2a/(2a+b+c) for two raters)."""
        rare = self.rare_label
        if rare is None:
            return None
        return self.value("positive_agreement" if rare == self.positive_label else "negative_agreement")

    def value(self, name: str) -> float | None:
        coefficient = self.coefficients.get(name)
        return coefficient.value if coefficient is not None else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "n_ratings": self.n_ratings,
            "n_pairable_items": self.n_pairable_items,
            "level": self.level,
            "categories": list(self.categories),
        }
        for name in COEFFICIENTS:
            if name in self.coefficients:
                out[name] = self.coefficients[name].value
        if self.positive_label is not None:
            out["positive_label"] = self.positive_label
            out["negative_label"] = self.negative_label
        if self.rare_label is not None:
            out["rare_label"] = self.rare_label
            out["rare_agreement"] = self.rare_agreement
        out["undefined"] = {k: c.reason for k, c in self.coefficients.items() if c.value is None}
        out["duplicated_raters"] = [list(d) for d in self.duplicated]
        out["notes"] = list(self.notes)
        return out


def pick_positive(categories: list[str], positive: str | None) -> str:
    """The positive label of a binary label set: ``positive`` if given, a conventional name
    ("1", "true", "yes", ...) if one is present, else the later label in natural order."""
    if positive is not None:
        label = normalize_label(positive)
        if label not in categories:
            raise ValueError(f"positive label {positive!r} is not one of the labels {categories}")
        return label
    for name in POSITIVE_NAMES:
        for category in categories:
            if category.casefold() == name:
                return category
    return categories[-1]


def duplicated_raters(table: RatingsTable, *, min_items: int = DUPLICATE_MIN_ITEMS) -> list[tuple[str, str, int]]:
    """Rater pairs who rated the same items (at least ``min_items``) and gave the same answer on every one."""
    rated = table.codes >= 0
    out = []
    for j in range(len(table.annotators)):
        for k in range(j + 1, len(table.annotators)):
            n = int(rated[:, j].sum())
            if n >= min_items and np.array_equal(rated[:, j], rated[:, k]) \
                    and np.array_equal(table.codes[:, j], table.codes[:, k]):
                out.append((table.annotators[j], table.annotators[k], n))
    return out


def agreement_summary(
    table: RatingsTable, *, level: Level = "nominal", positive: str | None = None,
    labels: Sequence[str] | None = None,
) -> AgreementSummary:
    """Compute the summary; ``positive`` names the positive class for binary data, ``labels``
    declares the full label set (labels nobody used still count for AC1 and binary detection)."""
    table = table.drop_unrated()
    if labels:
        table = table.with_categories(labels)
    counts = table.counts()
    notes: list[str] = []
    n_pairable = int((counts.sum(axis=1) >= 2).sum())
    numeric = [c for c in table.categories if labels_are_numeric([c])]
    if level == "ordinal" and numeric and len(numeric) < len(table.categories):
        notes.append("labels mix numbers and text: text labels rank after every number in ordinal α")
    elif level == "ordinal" and len(table.categories) > 2 and not numeric:
        notes.append("text labels have no numeric order: ordinal α ranks them alphabetically "
                     f"({' < '.join(table.categories)}); recode them as numbers if that is not their order")
    if n_pairable < len(table.items):
        notes.append(f"{len(table.items) - n_pairable} item(s) with a single rating left out of agreement")
    duplicated = duplicated_raters(table)
    for a, b, n in duplicated:
        notes.append(f"raters {a} and {b} gave identical answers on all {n} items they rated: a duplicated "
                     "rater (a copied column) lifts every coefficient; drop one unless they are truly two people")
    coefficients: dict[str, Coefficient] = {
        "pct_agreement": observed_agreement(counts),
        "fleiss_kappa": fleiss_kappa(counts),
        "krippendorff_alpha": krippendorff_alpha(table, level=level),
        "gwet_ac1": gwet_ac1(counts),
        "cohen_kappa": cohen_kappa(table),
    }
    if level != "nominal":  # ordered labels: a disagreement also has a size (weighted κ, beside α at this level)
        coefficients["weighted_kappa_linear"] = weighted_kappa(table, weights="linear")
        coefficients["weighted_kappa_quadratic"] = weighted_kappa(table, weights="quadratic")
    positive_label = negative_label = None
    if positive is not None and normalize_label(positive) not in table.categories:
        notes.append(f"positive label {positive!r} never used; positive/negative agreement not computed")
    elif len(table.categories) == 2:
        positive_label = pick_positive(table.categories, positive)
        negative_label = next(c for c in table.categories if c != positive_label)
        coefficients["positive_agreement"] = specific_agreement(counts, table.categories.index(positive_label))
        coefficients["negative_agreement"] = specific_agreement(counts, table.categories.index(negative_label))
    else:
        notes.append(f"{len(table.categories)} labels: positive/negative agreement needs exactly two")
    return AgreementSummary(
        n_items=len(table.items),
        n_annotators=len(table.annotators),
        n_ratings=table.n_ratings,
        n_pairable_items=n_pairable,
        level=level,
        categories=tuple(table.categories),
        coefficients=coefficients,
        positive_label=positive_label,
        negative_label=negative_label,
        notes=tuple(notes),
        category_ratings=tuple(int(x) for x in counts[counts.sum(axis=1) >= 2].sum(axis=0)),
        duplicated=tuple(duplicated),
    )
