"""Statistics on label sets (multi-label tasks): agreement on sets and per label, errors per label.

A multi-label answer is a set of labels, so "do two experts agree?" has degrees: exact match (the same
set), Hamming agreement (the share of labels both set or both left out) and Krippendorff's alpha with a
set distance, MASI (Passonneau 2006: Jaccard distance weighted by how the sets overlap; 0 identical,
1 disjoint) or Jaccard. Per label the question is binary ("does it apply?"): Cohen/Fleiss kappa and
positive specific agreement 2a/(2a+b+c), by :func:`stats_cli.stats.agreement_summary.agreement_summary`.
Errors per label compare the original set with the gold set: a label the annotator left out that gold
has is *added*, one the annotator set that gold lacks is *dropped*.

Alpha is :func:`krippendorff.alpha` with a distance callable; MASI and Jaccard are written here because
they are four lines each and the one library holding them (nltk) is far too large a dependency for
that; the tests check both, and alpha, against nltk.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import AbstractSet, Any, Mapping, Sequence

import numpy as np

from stats_cli.stats.agreement_summary import agreement_summary
from stats_cli.stats.bounds import clopper_pearson
from stats_cli.stats.ratings import Row, ratings_from_long
import krippendorff

__all__ = ["LabelErrors", "SET_DISTANCES", "exact_match_agreement", "hamming_agreement", "jaccard_distance",
           "label_errors", "masi_distance", "per_label_agreement", "set_alpha"]

Sets = Mapping[str, Mapping[str, AbstractSet[str]]]  # item -> rater -> the set that rater chose
YES, NO = "yes", "no"


def jaccard_distance(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """1 - |a & b| / |a | b| (two empty sets: 0)."""
    union = len(a | b)
    return 0.0 if union == 0 else 1.0 - len(a & b) / union


def masi_distance(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """MASI distance: 1 - Jaccard x monotonicity (1 equal, 2/3 one contains the other, 1/3 overlap, 0 disjoint)."""
    union, inter = len(a | b), len(a & b)
    if union == 0:
        return 0.0
    if a == b:
        weight = 1.0
    elif a <= b or b <= a:
        weight = 2 / 3
    elif inter:
        weight = 1 / 3
    else:
        weight = 0.0
    return 1.0 - inter / union * weight


SET_DISTANCES = {"masi": masi_distance, "jaccard": jaccard_distance}


def _pairable(answers: Sets) -> dict[str, dict[str, frozenset[str]]]:
    return {i: {r: frozenset(s) for r, s in by.items()} for i, by in answers.items() if len(by) >= 2}


def set_alpha(answers: Sets, *, distance: str = "masi") -> float | None:
    """Krippendorff's alpha over the raters' sets with a set distance (None: fewer than two pairable items
    or no variation at all)."""
    metric = SET_DISTANCES[distance]
    items = _pairable(answers)
    domain = sorted({s for by in items.values() for s in by.values()}, key=lambda s: (len(s), sorted(s)))
    if len(items) < 1 or len(domain) < 2:
        return None
    code = {s: i for i, s in enumerate(domain)}
    raters = sorted({r for by in items.values() for r in by})
    data = np.full((len(raters), len(items)), np.nan)
    for j, by in enumerate(items.values()):
        for r, s in by.items():
            data[raters.index(r), j] = code[s]

    def delta(v1: np.ndarray, v2: np.ndarray, i1: Any, i2: Any, n_v: Any, dtype: Any = np.float64) -> np.ndarray:
        a, b = np.broadcast_arrays(v1, v2)  # krippendorff asks for the V x V matrix at once
        flat = [metric(domain[int(x)], domain[int(y)]) for x, y in zip(a.ravel(), b.ravel())]
        return np.asarray(flat, dtype=dtype).reshape(a.shape)

    return float(krippendorff.alpha(reliability_data=data, value_domain=list(range(len(domain))),
                                    level_of_measurement=delta))


def _pairs(answers: Sets) -> list[tuple[frozenset[str], frozenset[str]]]:
    return [(by[a], by[b]) for by in _pairable(answers).values() for a, b in combinations(sorted(by), 2)]


def exact_match_agreement(answers: Sets) -> tuple[float | None, int]:
    """Share of rater pairs (within each item) that chose the same set, and the number of pairs."""
    pairs = _pairs(answers)
    return (sum(a == b for a, b in pairs) / len(pairs) if pairs else None), len(pairs)


def hamming_agreement(answers: Sets, labels: Sequence[str]) -> tuple[float | None, int]:
    """Share of (pair, label) decisions two raters made alike (1 - mean Hamming loss), and the number of pairs."""
    pairs = _pairs(answers)
    if not pairs or not labels:
        return None, len(pairs)
    return 1.0 - sum(len(a ^ b) for a, b in pairs) / (len(pairs) * len(labels)), len(pairs)


def per_label_agreement(answers: Sets, labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per label: kappa (Cohen for two raters, else Fleiss), positive agreement and % agreement on "applies?"."""
    items = _pairable(answers)
    out: dict[str, dict[str, Any]] = {}
    for label in labels:
        rows = [Row(0, {"item": i, "annotator": r, "label": YES if label in s else NO})
                for i, by in items.items() for r, s in by.items()]
        if not rows:
            out[label] = {"n_items": 0, "kappa": None, "positive_agreement": None, "pct_agreement": None}
            continue
        summary = agreement_summary(ratings_from_long(rows), level="nominal", positive=YES, labels=[NO, YES])
        kappa = summary.value("cohen_kappa") if summary.n_annotators == 2 else summary.value("fleiss_kappa")
        out[label] = {"n_items": summary.n_pairable_items, "kappa": kappa,
                      "positive_agreement": summary.value("positive_agreement"),
                      "pct_agreement": summary.value("pct_agreement")}
    return out


@dataclass(frozen=True)
class LabelErrors:
    """One label over the reviewed items: how often the original set was wrong about it."""

    label: str
    reviewed: int
    added: int  # gold has it, the original left it out
    dropped: int  # the original set it, gold does not
    cp_low: float | None
    cp_high: float | None

    @property
    def errors(self) -> int:
        return self.added + self.dropped

    @property
    def rate(self) -> float | None:
        return self.errors / self.reviewed if self.reviewed else None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "reviewed": self.reviewed, "added": self.added, "dropped": self.dropped,
                "errors": self.errors, "rate": self.rate, "cp_low": self.cp_low, "cp_high": self.cp_high}


def label_errors(pairs: Sequence[tuple[AbstractSet[str], AbstractSet[str]]], labels: Sequence[str], *,
                 confidence: float = 0.95) -> list[LabelErrors]:
    """Per label, over ``(original set, gold set)`` pairs: added and dropped counts, Clopper-Pearson bounds."""
    out = []
    n = len(pairs)
    for label in labels:
        added = sum(label in g and label not in o for o, g in pairs)
        dropped = sum(label in o and label not in g for o, g in pairs)
        low, high = clopper_pearson(added + dropped, n, confidence=confidence) if n else (None, None)
        out.append(LabelErrors(label, n, added, dropped, low, high))
    return out
