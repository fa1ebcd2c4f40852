"""Agreement on ordered grades (ratings 1–5, a number scale): weighted κ and Krippendorff α beside the nominal figures.

Nominal κ counts a 4 against a 5 as fully as a 1 against a 5, so on a rating scale it understates how
well raters agree; weighted κ (linear and quadratic) and Krippendorff α at the ordinal and interval
levels give partial credit by distance. The report prints them beside the nominal κ and α so a reader
sees both: the nominal figures say how often grades match exactly, the weighted ones how far apart they
are. Every figure comes from :mod:`stats_cli.stats.agreement` (scikit-learn and the ``krippendorff`` package);
this module only gathers them for one ratings table over the control's declared grades.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from stats_cli.stats.agreement import cohen_kappa, krippendorff_alpha, observed_agreement, weighted_kappa
from stats_cli.stats.coefficient import Coefficient
from stats_cli.stats.labels import normalize_label
from stats_cli.stats.ratings import RatingsTable

__all__ = ["ORDINAL_COEFFICIENTS", "OrdinalAgreement", "ordinal_agreement"]

#: JSON keys, in the order the report's columns show them.
ORDINAL_COEFFICIENTS = ("pct_agreement", "cohen_kappa", "kappa_linear", "kappa_quadratic", "alpha_nominal",
                        "alpha_ordinal", "alpha_interval")


@dataclass(frozen=True)
class OrdinalAgreement:
    """Exact-match and distance-aware agreement of one group of raters on one ordered control.

    ``n_items`` counts the items two or more raters graded (the only ones a pair can agree on);
    ``coefficients`` maps each name of :data:`ORDINAL_COEFFICIENTS` to its value or the reason it has none.
    """

    n_items: int
    n_raters: int
    grades: tuple[str, ...]
    coefficients: dict[str, Coefficient]

    def value(self, name: str) -> float | None:
        coefficient = self.coefficients.get(name)
        return None if coefficient is None else coefficient.value

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n_items": self.n_items, "n_raters": self.n_raters, "grades": list(self.grades)}
        out.update({name: self.value(name) for name in ORDINAL_COEFFICIENTS})
        out["undefined"] = {k: c.reason for k, c in self.coefficients.items() if c.value is None}
        return out


def ordinal_agreement(table: RatingsTable, *, grades: Sequence[str]) -> OrdinalAgreement:
    """Every figure of :class:`OrdinalAgreement` for ``table`` over the control's ``grades``.

    ``grades`` is the control's whole scale (``"1"``..``"5"``), declared so that a grade nobody used still
    sits between its neighbours: distances, and so the weights and α's ordinal ranks, depend on it.
    Ratings outside the scale are kept (a stale label must not vanish silently) and sorted in.
    """
    declared = [g for g in (normalize_label(x) for x in grades) if g is not None]
    table = table.drop_unrated().with_categories(declared)
    counts = table.counts()
    pairable = counts.sum(axis=1) >= 2
    coefficients = {
        "pct_agreement": observed_agreement(counts),
        "cohen_kappa": cohen_kappa(table),
        "kappa_linear": weighted_kappa(table, weights="linear"),
        "kappa_quadratic": weighted_kappa(table, weights="quadratic"),
        "alpha_nominal": krippendorff_alpha(table, level="nominal"),
        "alpha_ordinal": krippendorff_alpha(table, level="ordinal"),
        "alpha_interval": krippendorff_alpha(table, level="interval"),
    }
    return OrdinalAgreement(n_items=int(pairable.sum()), n_raters=len(table.annotators),
                            grades=tuple(table.categories), coefficients=coefficients)
