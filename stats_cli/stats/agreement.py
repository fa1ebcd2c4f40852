"""Inter-annotator agreement: raw agreement, Fleiss κ, Krippendorff α, Gwet AC1, Cohen κ (plain and weighted), specific agreement.

Raw agreement flatters skewed labels; κ corrects for chance but collapses under the kappa paradox;
positive-class agreement and AC1 tell the two apart ("Why is annotation hard?"). Every coefficient
takes an items × categories *count* matrix (``RatingsTable.counts()``) or the table itself, accepts
unequal numbers of raters per item, and returns a :class:`~stats_cli.stats.coefficient.Coefficient`
that is undefined with a reason instead of NaN.

Library use: Krippendorff α is the ``krippendorff`` package (given the count matrix and the value
domain); Cohen κ, plain and weighted (linear, quadratic), is scikit-learn. Fleiss κ and AC1 are written here because statsmodels'
``fleiss_kappa`` requires the same number of raters on every item and no maintained package
computes AC1 with current scipy (irrCAC pins scipy 1.12); both follow Gwet (2014), Handbook of
Inter-Rater Reliability, 4th ed., for missing ratings, and reduce to Fleiss (1971) when every item
has the same raters (tested against statsmodels).
"""

from __future__ import annotations

from typing import Literal

import krippendorff as _kd
import numpy as np
from sklearn.metrics import cohen_kappa_score

from stats_cli.stats.coefficient import Coefficient, defined, undefined
from stats_cli.stats.ratings import RatingsTable

__all__ = [
    "Level",
    "observed_agreement",
    "percent_agreement",
    "category_shares",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "cohen_kappa",
    "weighted_kappa",
    "specific_agreement",
]

Level = Literal["nominal", "ordinal", "interval"]
Weights = Literal["linear", "quadratic"]


def _counts(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError("counts must be an items × categories matrix")
    if counts.size and counts.min() < 0:
        raise ValueError("counts must be non-negative")
    return counts.astype(np.float64, copy=False)


def observed_agreement(counts: np.ndarray) -> Coefficient:
    """Mean over items with ≥2 ratings of the share of agreeing rater pairs (Fleiss' P̄).

    An item rated by one annotator has no pair to agree or disagree, so it is left out.
    """
    c = _counts(counts)
    r = c.sum(axis=1)
    pairable = r >= 2
    if not pairable.any():
        return undefined("no item has two or more ratings")
    cp, rp = c[pairable], r[pairable]
    per_item = (cp * (cp - 1.0)).sum(axis=1) / (rp * (rp - 1.0))
    return defined(per_item.mean())


percent_agreement = observed_agreement
"""Alias: the issue calls mean pairwise agreement within items ``pct_agreement``."""


def category_shares(counts: np.ndarray) -> np.ndarray:
    """p_k: mean over rated items of the share of the item's ratings in category k (Gwet 2014)."""
    c = _counts(counts)
    r = c.sum(axis=1)
    rated = r > 0
    if not rated.any():
        return np.zeros(c.shape[1])
    return (c[rated] / r[rated, None]).mean(axis=0)


def _chance_corrected(pa: Coefficient, pe: float, *, name: str) -> Coefficient:
    if pa.value is None:
        return pa
    if 1.0 - pe <= 1e-12:
        return undefined(f"{name} undefined: chance agreement is 1 (every rating falls in one category)")
    return defined((pa.value - pe) / (1.0 - pe))


def fleiss_kappa(counts: np.ndarray) -> Coefficient:
    """Fleiss' κ for any number of raters per item (Gwet's missing-rating form).

    P_e = Σ_k p_k² with p_k from :func:`category_shares`; P_a from :func:`observed_agreement`.
    Undefined when every rating falls in one category (P_e = 1).
    """
    c = _counts(counts)
    pe = float((category_shares(c) ** 2).sum())
    return _chance_corrected(observed_agreement(c), pe, name="Fleiss κ")


def gwet_ac1(counts: np.ndarray, *, n_categories: int | None = None) -> Coefficient:
    """Gwet's AC1: P_e = Σ_k p_k(1 − p_k) / (q − 1), robust to skewed prevalence.

    ``n_categories`` (q) defaults to the number of columns of ``counts``: pass the size of the
    declared label set when some labels were never used.
    """
    c = _counts(counts)
    q = c.shape[1] if n_categories is None else int(n_categories)
    if q < c.shape[1]:
        raise ValueError("n_categories is smaller than the number of count columns")
    if q < 2:
        return undefined("AC1 undefined: fewer than two categories in the label set")
    p = category_shares(c)
    pe = float((p * (1.0 - p)).sum() / (q - 1))
    return _chance_corrected(observed_agreement(c), pe, name="AC1")


def krippendorff_alpha(table: RatingsTable, *, level: Level = "nominal") -> Coefficient:
    """Krippendorff's α via the ``krippendorff`` package, given counts and the value domain.

    Nominal uses category codes; ordinal uses the natural label order (numbers numerically, so
    "10" ranks after "9"); interval needs numeric labels and uses their values. Passing the full
    value domain matters: without it the package infers the domain from the data and string
    labels sort lexically.
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError(f"level must be nominal, ordinal or interval, not {level!r}")
    counts = table.counts()
    if len(table.categories) < 2:
        return undefined("α undefined: fewer than two distinct labels (no disagreement is possible)")
    if not ((counts.sum(axis=1) >= 2).any()):
        return undefined("α undefined: no item has two or more ratings")
    if level == "interval":
        if not table.numeric():
            return undefined("interval α needs numeric labels")
        domain = table.category_values()
    else:
        domain = np.arange(len(table.categories), dtype=float)
    pairable = counts.sum(axis=1) >= 2
    try:
        with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 → NaN → reported as undefined
            value = _kd.alpha(value_counts=counts[pairable], value_domain=domain, level_of_measurement=level)
    except (ValueError, ZeroDivisionError) as exc:
        return undefined(f"α undefined: {exc}")
    return defined(value, reason_if_nan="α undefined: no expected disagreement")


def cohen_kappa(table: RatingsTable) -> Coefficient:
    """Cohen's κ (scikit-learn) when exactly two annotators rated every item, else undefined."""
    table = table.drop_unrated()
    if len(table.annotators) != 2:
        return undefined(f"Cohen κ needs exactly two annotators, found {len(table.annotators)}")
    if (table.codes < 0).any():
        return undefined("Cohen κ needs both annotators to rate every item")
    a, b = table.codes[:, 0], table.codes[:, 1]
    pe = sum(float((a == k).mean() * (b == k).mean()) for k in range(len(table.categories)))
    if 1.0 - pe <= 1e-12:
        return undefined("Cohen κ undefined: both annotators used a single category throughout")
    return defined(cohen_kappa_score(a, b, labels=list(range(len(table.categories)))))


def weighted_kappa(table: RatingsTable, *, weights: Weights = "quadratic") -> Coefficient:
    """Weighted κ on ordered labels: Cohen's weighted κ, the grades charged by their distance.

    A 4 against a 5 is a smaller disagreement than a 1 against a 5; weighted κ charges each pair of
    grades by their distance in the label order (``linear``: |i − j|, ``quadratic``: (i − j)²; the
    quadratic form is close to an intraclass correlation). Two annotators: Cohen's weighted κ over the
    items both rated. More annotators: the mean of the weighted κ of every annotator pair over the items
    that pair rated (Light's 1971 averaging, the usual extension; α ordinal/interval is the coefficient
    built for many raters). Numeric grades are charged by their *values* (a 2 against a 5 is three points
    whether or not anyone gave a 3 or a 4); text labels by their rank in ``table.categories``. Written out
    (κ_w = 1 − Σ w·O / Σ w·E over the pair's confusion matrix) because scikit-learn's weights are the labels'
    ranks, which on the grades seen ({1, 2, 5}) put 2 and 5 one step apart; on an equally spaced scale the two
    are the same, and the tests hold it to scikit-learn there to 1e-12.
    """
    if weights not in ("linear", "quadratic"):
        raise ValueError(f"weights must be linear or quadratic, not {weights!r}")
    table = table.drop_unrated()
    if len(table.annotators) < 2:
        return undefined(f"weighted κ needs two annotators, found {len(table.annotators)}")
    grades = table.category_values() if table.numeric() else np.arange(len(table.categories), dtype=float)
    distance = np.abs(grades[:, None] - grades[None, :])
    cost = distance if weights == "linear" else distance ** 2
    values, reasons = [], []
    for j in range(len(table.annotators)):
        for k in range(j + 1, len(table.annotators)):
            both = (table.codes[:, j] >= 0) & (table.codes[:, k] >= 0)
            a, b = table.codes[both, j], table.codes[both, k]
            if len(a) < 2:
                reasons.append("fewer than two items rated by both")
                continue
            if len(set(a.tolist()) | set(b.tolist())) < 2:
                reasons.append("both gave one grade throughout")
                continue
            value = _weighted_kappa_pair(a, b, cost)
            if value is not None:
                values.append(value)
    if not values:
        why = reasons[0] if reasons else "no annotator pair is comparable"
        return undefined(f"weighted κ undefined: {why}")
    return defined(float(np.mean(values)))


def _weighted_kappa_pair(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> float | None:
    """1 − Σ cost·observed / Σ cost·expected (expected from the two raters' marginals); None when undefined."""
    k = cost.shape[0]
    observed = np.zeros((k, k))
    np.add.at(observed, (a, b), 1.0)
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    chance = float((cost * expected).sum())
    if chance <= 1e-15:
        return None
    return 1.0 - float((cost * observed).sum()) / chance


def specific_agreement(counts: np.ndarray, category: int) -> Coefficient:
    """Agreement on one category: Σ_i n_ik(n_ik−1) / Σ_i n_ik(n_i−1) over items with ≥2 ratings.

    For two annotators this is 2a/(2a+b+c) (positive-class agreement) with a = items both put in
    the category and b, c = items only one of them did. Hand-written: no library offers it.
    """
    c = _counts(counts)
    if not 0 <= category < c.shape[1]:
        raise ValueError(f"category index {category} out of range")
    r = c.sum(axis=1)
    pairable = r >= 2
    nk, rp = c[pairable, category], r[pairable]
    denominator = float((nk * (rp - 1.0)).sum())
    if denominator == 0:
        return undefined("specific agreement undefined: no pairable rating uses this label")
    return defined(float((nk * (nk - 1.0)).sum()) / denominator)
