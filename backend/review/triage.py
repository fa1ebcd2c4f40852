"""Triage of the flagged items: likely error, ambiguous, or guideline gap, with the figures behind each.

A flag says the ensemble confidently disagrees with the label. Experts then spend their time on two kinds
of item: labels that are simply wrong, and items where trained people disagree (Elangovan et al. 2026:
under ground-truth variation even an expert scores near a random labeller). The second kind should change
the guidelines, not the labels. The figures, all from the ledger:

- ``p_d``: the share of the original annotators who gave the original label (None with one annotation);
- the annotators' agreement: the share of their most given label (None with one annotation). Annotators
  *split* when it is low; ``p_d`` alone would also call a split the annotators who all gave another label
  than the original (an original imported as a data field), which is the strongest sign of an error;
- judges' mean entropy (each judge's distribution, normalised by log k): members that agree and are unsure;
- judges' spread: the Jensen–Shannon divergence of their distributions (entropy of the mean minus the mean
  entropy, normalised by log k): members that disagree with each other;
- the confident-learning member's probability of the original label;
- ``p_wrong``: the truth model's posterior mass on the labels that make the original an error by the family's
  rule (``is_error``; any other label by default, a grade beyond delta on an ordinal scale) (:mod:`backend.review.truth_model`,
  every annotator, every judge model (its prompts averaged into one source) and the ``cleanlab:`` member as
  sources, the experts' gold as anchors).

Rule: *likely error* when ``p_wrong`` reaches the error cut, the annotators did not split (their agreement
not below ``pd_cut``) and the judges are not all unsure (unless the annotators are unanimous: people who
all agree outweigh unsure judges on whether the item is clear); otherwise *guideline gap* when the item sits on a label
pair the sources keep confusing (pooled confusion rate and number of flagged items on the pair), else
*ambiguous*. The error cut is learnt from the review's own verdicts when there are enough (the cut of
best F1 on the reviewed items' cross-fitted posteriors: five fits, each anchored on the other folds'
verdicts, so an item's gold never sets its own score), never from the items under test; otherwise the documented defaults in
:mod:`backend.common.defaults`. :attr:`Thresholds.source` says which.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from scipy.stats import binomtest

from backend.common import defaults
from backend.review.calibration import not_enough
from backend.review.model_sources import one_source_per_model
from backend.review.source_accuracy import DEFAULT_REFITS, source_table
from backend.review.truth_model import SourceQuality, TruthModel

__all__ = ["LIKELY_ERROR", "AMBIGUOUS", "GUIDELINE_GAP", "ItemEvidence", "Thresholds", "ItemTriage",
           "GuidelineGap", "TriageResult", "triage", "triage_items", "thresholds_from_verdicts", "is_confident_member"]

LIKELY_ERROR, AMBIGUOUS, GUIDELINE_GAP = "likely error", "ambiguous", "guideline gap"
CONFIDENT_PREFIX = "cleanlab:"


def is_confident_member(member_id: str) -> bool:
    """True for the confident-learning member (its id starts with ``cleanlab:``)."""
    return str(member_id).startswith(CONFIDENT_PREFIX)


@dataclass(frozen=True)
class ItemEvidence:
    """One item: its original label, the original annotators' labels, each member's distribution."""

    item: str
    original: str | None
    annotations: Mapping[str, str] = field(default_factory=dict)  # annotator -> label
    members: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # member id -> label -> probability


@dataclass(frozen=True)
class Thresholds:
    """The cuts of the rule and where they come from (``"defaults"`` or ``"verdicts (n=…)"``)."""

    error_cut: float = defaults.TRIAGE_ERROR_CUT
    pd_cut: float = defaults.TRIAGE_PD_CUT
    entropy_cut: float = defaults.TRIAGE_ENTROPY_CUT
    spread_cut: float = defaults.TRIAGE_SPREAD_CUT
    gap_min_items: int = defaults.TRIAGE_GAP_MIN_ITEMS
    gap_min_rate: float = defaults.TRIAGE_GAP_MIN_RATE
    source: str = "defaults"
    #: The judges' median mean entropy over every item of the project (set by :func:`triage`, no label used):
    #: judges are unsure on an item only above it too, so a judge that is soft on every item (a small model
    #: averaged over option orders: median 0.97 on ChaosNLI) does not make every suspect ambiguous.
    entropy_usual: float | None = None

    def __post_init__(self) -> None:
        for name in ("error_cut", "pd_cut", "entropy_cut", "spread_cut", "gap_min_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]")
        if self.gap_min_items < 1:
            raise ValueError("gap_min_items must be at least 1")
        if self.entropy_usual is not None and not 0.0 <= self.entropy_usual <= 1.0:
            raise ValueError("entropy_usual must be in [0, 1]")


@dataclass(frozen=True)
class ItemTriage:
    """One flagged item's class and the figures it rests on (None: the figure has no data here)."""

    item: str
    klass: str
    original: str | None
    truth_label: str | None
    p_wrong: float | None
    p_d: float | None
    judge_entropy: float | None
    judge_spread: float | None
    cl_p_original: float | None
    reasons: tuple[str, ...] = ()
    annotator_agreement: float | None = None  # share of the annotators' most given label (None: fewer than 2)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["class"], out["reasons"] = out.pop("klass"), list(self.reasons)
        return out


@dataclass(frozen=True)
class GuidelineGap:
    """A label pair the sources keep confusing: pooled confusion rate, flagged items on it, examples."""

    pair: tuple[str, str]
    rate: float
    n_items: int
    examples: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"pair": list(self.pair), "rate": self.rate, "n_items": self.n_items, "examples": list(self.examples)}


@dataclass(frozen=True)
class TriageResult:
    """Every flagged item's triage, the guideline gaps, the sources' quality and the thresholds used."""

    items: tuple[ItemTriage, ...]
    gaps: tuple[GuidelineGap, ...]
    sources: tuple[SourceQuality, ...]
    thresholds: Thresholds
    posterior: Mapping[str, Mapping[str, float]]

    def by_class(self, klass: str) -> list[ItemTriage]:
        return [t for t in self.items if t.klass == klass]

    def to_json(self) -> dict[str, Any]:
        return {"thresholds": asdict(self.thresholds), "items": [t.to_json() for t in self.items],
                "gaps": [g.to_json() for g in self.gaps], "sources": [s.to_json() for s in self.sources]}


def _norm_entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def judge_figures(members: Mapping[str, Mapping[str, float]], labels: Sequence[str]) -> tuple[float | None, float | None]:
    """(mean normalised entropy, Jensen–Shannon spread) of the judges (``cleanlab:`` left out)."""
    rows = []
    for member, probs in members.items():
        if is_confident_member(member) or not probs:
            continue
        v = np.array([max(float(probs.get(lab, 0.0) or 0.0), 0.0) for lab in labels])
        if v.sum() > 0:
            rows.append(v / v.sum())
    if not rows:
        return None, None
    scale = np.log(len(labels))
    entropies = [_norm_entropy(r) / scale for r in rows]
    mean_entropy = float(np.mean(entropies))
    if len(rows) < 2:
        return mean_entropy, None
    spread = _norm_entropy(np.mean(rows, axis=0)) / scale - mean_entropy
    return mean_entropy, max(float(spread), 0.0)


def observations(evidence: Sequence[ItemEvidence], *, pool_annotators: bool = False,
                 per_prompt: bool = False) -> dict[str, dict[str, Any]]:
    """Item -> source -> label or distribution: annotators (or the original label when none), every judge model.

    ``pool_annotators`` makes the annotators one source with one confusion matrix (each label counts): for crowds whose names
    are not people (positions, anonymous workers) or who label a few items each, where one confusion
    matrix per name has nothing to rest on and EM falls into a label-swapped optimum. A judge model is one
    source, its prompts averaged (:func:`one_source_per_model`); ``per_prompt`` keeps a source per
    member × prompt (for the measurement that chose this).
    """
    out: dict[str, dict[str, Any]] = {}
    for ev in evidence:
        said = [lab for lab in ev.annotations.values() if lab is not None]
        if pool_annotators and said:
            by: dict[str, Any] = {"annotators (pooled)": list(said)}
        else:
            by = {f"annotator:{a}": lab for a, lab in ev.annotations.items() if lab is not None}
        if not by and ev.original is not None:
            by["original label"] = ev.original
        by.update({m: dict(p) for m, p in ev.members.items() if p} if per_prompt else one_source_per_model(ev.members))
        out[ev.item] = by
    return out


#: Whether an original label is wrong given a gold label: ``(gold, original) -> bool``, the family's disagreement
#: (``backend.scoring.ensemble.label_error``); without one, any difference.
ErrorRule = Callable[[str, str], bool]


def _exact(gold: str, original: str) -> bool:
    return gold != original


def _p_wrong(post: Mapping[str, float], original: str, is_error: ErrorRule) -> float:
    """P(the original is wrong) under the posterior: the mass on the labels that make it an error.

    On an ordinal scale a grade within the flag's delta of the original is no error, so its mass does not count
    (1 − P(exact grade) would call a one-step regrade an error the flag never looks for)."""
    return float(sum(p for label, p in post.items() if is_error(str(label), original)))


#: Significance a learnt error cut's precision must reach against the reviewed items' error rate.
SEPARATION_P = 0.05


def thresholds_from_verdicts(p_wrong: Sequence[float], wrong: Sequence[bool], *, base: Thresholds | None = None) -> Thresholds:
    """The error cut of best F1 on the reviewed items; ``base`` (the defaults) when the verdicts are too few."""
    base = base or Thresholds()
    if not_enough(list(wrong)) is not None:
        return base
    scores, truth = np.asarray(p_wrong, dtype=float), np.asarray(wrong, dtype=bool)
    cuts = np.unique(scores)
    best, best_f1 = base.error_cut, -1.0
    for cut in cuts:
        said = scores >= cut
        tp = float((said & truth).sum())
        f1 = 2 * tp / (said.sum() + truth.sum()) if said.sum() + truth.sum() else 0.0
        if f1 > best_f1:
            best, best_f1 = float(cut), f1
    said = scores >= best
    # The cut must pick out errors better than chance on these verdicts (one-sided binomial test of its
    # precision against the reviewed items' error rate); a posterior that does not separate them gives a
    # best-F1 cut near 0, which would call every suspect a likely error.
    if best <= cuts[0] or binomtest(int((said & truth).sum()), int(said.sum()), float(truth.mean()),
                                    alternative="greater").pvalue >= SEPARATION_P:
        return replace(base, source=f"defaults (the {len(truth)} verdicts do not separate errors: "
                                    "no cut beats their error rate)")
    return replace(base, error_cut=min(max(best, 0.0), 1.0), source=f"verdicts (n={len(truth)})")


def _p_d(ev: ItemEvidence) -> float | None:
    labels = [lab for lab in ev.annotations.values() if lab is not None]
    if len(labels) < 2 or ev.original is None:
        return None
    return labels.count(ev.original) / len(labels)


def _agreement(ev: ItemEvidence) -> float | None:
    labels = [lab for lab in ev.annotations.values() if lab is not None]
    if len(labels) < 2:
        return None
    return max(labels.count(lab) for lab in set(labels)) / len(labels)


def _gaps(model: TruthModel, rows: list[ItemTriage], th: Thresholds) -> tuple[GuidelineGap, ...]:
    confusion, labels = model.pooled_confusion(), model.labels
    out = []
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            on_truth = confusion[:, a].sum() + confusion[:, b].sum()
            rate = float((confusion[a, b] + confusion[b, a]) / on_truth) if on_truth else 0.0
            pair = {labels[a], labels[b]}
            on_pair = [r.item for r in rows if {r.original, r.truth_label} == pair]
            if len(on_pair) >= th.gap_min_items and rate >= th.gap_min_rate:
                out.append(GuidelineGap((labels[a], labels[b]), rate, len(on_pair), tuple(on_pair[:5])))
    return tuple(sorted(out, key=lambda g: -g.rate))


def triage(evidence: Sequence[ItemEvidence], *, labels: Sequence[str], flagged: Sequence[str],
           anchors: Mapping[str, str | None] | None = None, thresholds: Thresholds | None = None,
           pool_annotators: bool = False, is_error: ErrorRule | None = None, refits: int = DEFAULT_REFITS,
           per_prompt: bool = False) -> TriageResult:
    """Fit the truth model on every item's evidence and triage the ``flagged`` ones.

    ``is_error`` (gold, original) -> whether the original is wrong: the family's rule
    (:func:`backend.scoring.ensemble.label_error`); P(wrong) and the learnt cut both count errors by it.

    ``anchors`` are the experts' settled gold labels. Without ``thresholds``, the error cut is learnt
    from the anchored items (:func:`thresholds_from_verdicts`), else the defaults apply.
    ``pool_annotators``, ``per_prompt``: see :func:`observations`. ``refits``: the sources' accuracy
    intervals (:func:`backend.review.source_accuracy.source_accuracies`; 0 gives Wilson's).
    """
    anchors = {k: v for k, v in (anchors or {}).items() if v is not None}
    wrong = is_error or _exact
    obs = observations(evidence, pool_annotators=pool_annotators, per_prompt=per_prompt)
    model = TruthModel(labels).fit(obs, anchors=anchors)
    posterior = model.predict_proba()
    by_id = {ev.item: ev for ev in evidence}
    if thresholds is None:
        thresholds = Thresholds()
        reviewed = [i for i in anchors if i in posterior and by_id[i].original is not None]
        if reviewed:
            blind = _cross_fitted(obs, anchors, reviewed, labels)
            thresholds = thresholds_from_verdicts([_p_wrong(blind[i], str(by_id[i].original), wrong) for i in reviewed],
                                                  [wrong(str(anchors[i]), str(by_id[i].original)) for i in reviewed])
    figures = {ev.item: judge_figures(ev.members, model.labels) for ev in evidence}  # once per item
    if thresholds.entropy_usual is None:
        entropies = [e for e, _spread in figures.values() if e is not None]
        if entropies:
            thresholds = replace(thresholds, entropy_usual=float(np.median(entropies)))
    rows = []
    for item in flagged:
        ev = by_id.get(str(item))
        if ev is None:
            continue
        post = posterior.get(ev.item)
        p_wrong = None if post is None or ev.original is None else _p_wrong(post, str(ev.original), wrong)
        truth = None if post is None else max(post, key=post.get)
        entropy, spread = figures[ev.item]
        cl = [p for m, p in ev.members.items() if is_confident_member(m) and p]
        cl_p = None if not cl or ev.original is None else float(cl[0].get(str(ev.original), 0.0))
        rows.append(ItemTriage(ev.item, AMBIGUOUS, ev.original, truth, p_wrong, _p_d(ev), entropy, spread, cl_p,
                               annotator_agreement=_agreement(ev)))
    gaps = _gaps(model, rows, thresholds)
    gap_pairs = [set(g.pair) for g in gaps]
    return TriageResult(tuple(_classify(r, thresholds, gap_pairs) for r in rows), gaps,
                        tuple(source_table(obs, labels=labels, anchors=anchors, refits=refits)), thresholds, posterior)


def _cross_fitted(obs: Mapping[str, Mapping[str, Any]], anchors: Mapping[str, str], reviewed: Sequence[str],
                  labels: Sequence[str], *, folds: int = 5) -> dict[str, dict[str, float]]:
    """Each reviewed item's posterior from a fit anchored on the other folds' verdicts, never its own.

    The cut is then learnt on posteriors of the same kind as the unreviewed suspects get (the other
    anchors in, its own out), so an item's gold never sets its own score.
    """
    out: dict[str, dict[str, float]] = {}
    order = sorted(reviewed)
    for k in range(min(folds, len(order))):
        held = set(order[k::folds])
        fit = TruthModel(labels).fit(obs, anchors={i: g for i, g in anchors.items() if i not in held})
        post = fit.predict_proba()
        out.update({i: post[i] for i in held if i in post})
    return out


def _classify(row: ItemTriage, th: Thresholds, gap_pairs: list[set[str]]) -> ItemTriage:
    reasons = []
    split = row.annotator_agreement is not None and row.annotator_agreement < th.pd_cut
    unsure = (row.judge_entropy is not None and row.judge_entropy >= th.entropy_cut
              and (th.entropy_usual is None or row.judge_entropy > th.entropy_usual))
    if split:
        reasons.append(f"annotators split (top label share {row.annotator_agreement:.2f} < {th.pd_cut})")
    unanimous = row.annotator_agreement is not None and row.annotator_agreement >= 1.0
    if unsure and unanimous:
        reasons.append(f"judges unsure (mean entropy {row.judge_entropy:.2f}) but the annotators are unanimous")
        unsure = False
    if unsure:
        usual = th.entropy_usual
        above = f", above their median {usual:.2f} here" if usual is not None and usual >= th.entropy_cut else ""
        reasons.append(f"judges unsure (mean entropy {row.judge_entropy:.2f} >= {th.entropy_cut}{above})")
    if row.judge_spread is not None and row.judge_spread >= th.spread_cut:
        reasons.append(f"judges disagree (spread {row.judge_spread:.2f} >= {th.spread_cut})")
    if row.p_wrong is None:
        reasons.append("no posterior for the original label")
    elif row.p_wrong >= th.error_cut and not split and not unsure:
        return replace(row, klass=LIKELY_ERROR, reasons=(f"P(wrong) {row.p_wrong:.2f} >= {th.error_cut}", *reasons))
    else:
        reasons.append(f"P(wrong) {row.p_wrong:.2f}" + (f" < {th.error_cut}" if row.p_wrong < th.error_cut else ""))
    if {row.original, row.truth_label} in gap_pairs:
        return replace(row, klass=GUIDELINE_GAP, reasons=(f"on confused pair {row.original}/{row.truth_label}", *reasons))
    return replace(row, klass=AMBIGUOUS, reasons=tuple(reasons))


def triage_items(results: Sequence[Any], *, labels: Sequence[str], crowd: Mapping[str, Mapping[str, str]] | None = None,
                 anchors: Mapping[str, str | None] | None = None, thresholds: Thresholds | None = None,
                 is_error: ErrorRule | None = None, refits: int = DEFAULT_REFITS) -> TriageResult:
    """Triage the flagged ledger rows (:class:`backend.scoring.results.ItemResult`) among all of them.

    ``crowd`` is item -> annotator -> label (several original annotations), ``anchors`` the settled gold.
    Annotators are pooled into one source when the median annotator labelled fewer than
    ``defaults.TRIAGE_MIN_PER_ANNOTATOR`` items (a confusion matrix each would rest on nothing).
    Rows with an error or no prediction are left out of the model and of the triage; flagged rows with no
    member distribution are left out of the triage.
    """
    crowd = crowd or {}
    evidence, flagged = [], []
    for r in results:
        if getattr(r, "error", None) is not None or r.prediction is None:
            continue
        members = {m.member_id: dict(m.probs) for m in r.members if m.probs}
        evidence.append(ItemEvidence(str(r.id), r.original, dict(crowd.get(str(r.id), {})), members))
        if r.flagged and members:  # a suspect with no member distribution has nothing to triage
            flagged.append(str(r.id))
    per_annotator: dict[str, int] = {}
    for by in crowd.values():
        for annotator in by:
            per_annotator[annotator] = per_annotator.get(annotator, 0) + 1
    counts = sorted(per_annotator.values())
    pool = bool(counts) and counts[len(counts) // 2] < defaults.TRIAGE_MIN_PER_ANNOTATOR
    return triage(evidence, labels=labels, flagged=flagged, anchors=anchors, thresholds=thresholds,
                  pool_annotators=pool, is_error=is_error, refits=refits)

