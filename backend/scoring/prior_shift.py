"""Class-prior correction from the project's own outputs (opt-in): each member's answers re-weighted per class.

A judge's posteriors carry the class prior it answers under. When a project's classes come in other
proportions (or the judge leans to one class), its answers over the project show it. Two corrections read that
from the member's own answers on the project (``given`` also from the shares of the project's labels):

- ``em``: Saerens, Latinne & Decaestecker (2002), *Adjusting the outputs of a classifier to new a priori
  probabilities*: the project's prior is re-estimated by EM — posteriors re-weighted by (new prior / the prior the
  judge answers under), the new prior the mean of the re-weighted posteriors, until it settles — and each answer
  is adjusted to it. A zero-shot judge has no training prior; the one it answers under is taken as uniform (its
  option orders averaged). EM assumes the judge is calibrated: a lean it shows on every item is read as the
  project's prior and kept, even sharpened.
- ``batch``: divide each answer by the member's mean answer over the project and renormalise (batch calibration,
  Zhou et al. 2023): the lean is removed whatever its cause, towards equal classes.
- ``given``: the same division, but towards the class shares of the project's own labels (each class counted once
  more, so a class nobody chose keeps some mass) instead of equal classes. The labels under audit are mostly right
  (an audit looks for the few that are not), so their shares estimate the project's prior far better than a judge
  that leans; one wrong label moves a share by 1/n, so an item's own label barely moves its own correction. It
  reads the labels' counts only, never an item's label against its answer.

Why by hand: a few lines of array arithmetic (the EM of the paper, eqs. 2.9–2.10); no maintained library
offers it over arbitrary posteriors. Applied like the health gate (:mod:`backend.scoring.health_gate`): over all
the results judged together, then every verdict re-read; the stored member rows keep the judge's own answers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

import numpy as np

from backend.scoring.ensemble import VerdictRule, model_of, verdict
from backend.scoring.label_fit import fit_to_labels
from backend.scoring.results import ItemResult, MemberResult

__all__ = ["MODES", "PriorFit", "adjust", "batch_prior", "check_mode", "correct_results", "em_prior",
           "given_prior", "label_shares"]

#: ``fitted`` is not a re-weighting: the verdicts are re-read by a model of the labels (:mod:`backend.scoring.label_fit`);
#: ``auto`` chooses among the gate's verdicts, ``given`` and ``fitted`` by the labels (:mod:`backend.scoring.correction_choice`).
MODES = ("none", "em", "batch", "given", "fitted", "auto")
_EPS = 1e-12


def check_mode(mode: str) -> str:
    """``mode`` when it is one of :data:`MODES`; ValueError otherwise."""
    if mode not in MODES:
        raise ValueError(f"prior correction must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


@dataclass(frozen=True)
class PriorFit:
    """An estimated prior, the posteriors adjusted to it, and how EM got there."""

    prior: np.ndarray
    posteriors: np.ndarray
    iterations: int
    converged: bool


def _checked(posteriors: Any, train_prior: Any | None) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(posteriors, dtype=float)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] < 2:
        raise ValueError(f"posteriors must be an (items x classes) array with >= 2 classes, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("each row of posteriors must be a distribution (finite, non-negative, summing to 1)")
    k = p.shape[1]
    prior = np.full(k, 1.0 / k) if train_prior is None else np.asarray(train_prior, dtype=float)
    if prior.shape != (k,) or np.any(prior <= 0) or not np.isclose(prior.sum(), 1.0):
        raise ValueError("train_prior must be a positive distribution over the classes")
    return p, prior


def adjust(posteriors: Any, old_prior: Any, new_prior: Any) -> np.ndarray:
    """Posteriors under ``old_prior`` moved to ``new_prior`` (Bayes: re-weighted per class, renormalised)."""
    p = np.asarray(posteriors, dtype=float) * (np.asarray(new_prior, dtype=float)
                                               / np.maximum(np.asarray(old_prior, dtype=float), _EPS))
    return p / np.maximum(p.sum(axis=1, keepdims=True), _EPS)


def em_prior(posteriors: Any, *, train_prior: Any | None = None, max_iter: int = 1000,
             tol: float = 1e-8) -> PriorFit:
    """Saerens et al. (2002): the prior of the items behind ``posteriors`` (rows under ``train_prior``, default
    uniform), by EM; the posteriors adjusted to it."""
    p, old = _checked(posteriors, train_prior)
    prior = old.copy()
    adjusted = p
    for step in range(1, max_iter + 1):
        adjusted = adjust(p, old, prior)
        new = adjusted.mean(axis=0)
        if np.max(np.abs(new - prior)) < tol:
            return PriorFit(new, adjust(p, old, new), step, True)
        prior = new
    return PriorFit(prior, adjusted, max_iter, False)


def batch_prior(posteriors: Any) -> PriorFit:
    """The member's mean answer as its lean, divided out towards equal classes (batch calibration)."""
    p, uniform = _checked(posteriors, None)
    mean = p.mean(axis=0)
    return PriorFit(mean, adjust(p, mean, uniform), 0, True)


def given_prior(posteriors: Any, given: Sequence[int]) -> PriorFit:
    """The member's mean answer divided out towards the shares of the labels ``given`` (class indices, one per
    row; -1 for an item without a label among the classes, left out of the counts), each class counted once more
    (add-one smoothing)."""
    p, _ = _checked(posteriors, None)
    idx = np.asarray(given, dtype=int)
    if idx.shape != (p.shape[0],) or np.any(idx < -1) or np.any(idx >= p.shape[1]):
        raise ValueError("given must hold one class index (or -1) per row of posteriors")
    mean = p.mean(axis=0)
    return PriorFit(mean, adjust(p, mean, label_shares(idx, p.shape[1])), 0, True)


def label_shares(given: Sequence[int], classes: int) -> np.ndarray:
    """The class shares of the labels ``given`` (class indices; -1, an item without a label among the classes, not
    counted), each class counted once more so a class nobody chose keeps some mass: ``given``'s target."""
    idx = np.asarray(given, dtype=int)
    known = idx[idx >= 0]
    return (np.bincount(known, minlength=classes) + 1.0) / (known.size + classes)


def _fit(mode: str, rows: np.ndarray, given: Sequence[int]) -> PriorFit:
    if mode == "em":
        return em_prior(rows)
    return given_prior(rows, given) if mode == "given" else batch_prior(rows)


def _index(labels: Sequence[str], original: Any) -> int:
    """The class index of an item's label for ``given``; -1 when it has none among the classes (not counted)."""
    return list(labels).index(str(original)) if original is not None and str(original) in labels else -1


def correct_results(results: Iterable[ItemResult], rule: VerdictRule, *, mode: str,
                    left_out: Iterable[str] = ()) -> tuple[list[ItemResult], dict[str, Any]]:
    """Each member's answers over ``results`` corrected (``mode``), every verdict re-read from them.

    The ensemble averages the corrected answers of the members not in ``left_out`` (the health gate's). Returns
    the re-read results (member rows corrected too, so a reader sees what was averaged) and, per member, the prior
    it was corrected from. ``none`` returns the results unchanged.
    """
    results = list(results)
    check_mode(mode)
    if mode == "none":
        return results, {"mode": mode, "priors": {}}
    if mode == "fitted":
        return fit_to_labels(results, rule, left_out=left_out)
    if mode == "auto":
        from backend.scoring.correction_choice import choose_correction
        from backend.scoring.health_gate import HealthGate, regate

        gate = HealthGate(left_out={m: "left out" for m in left_out})
        return choose_correction(results, [regate(r, gate, rule) for r in results], rule, left_out=left_out)
    labels: Sequence[str] = rule.spec.labels
    answers: dict[str, list[tuple[int, int]]] = {}
    for i, result in enumerate(results):
        for j, member in enumerate(result.members):
            if member.probs is not None:
                answers.setdefault(member.member_id, []).append((i, j))
    members = [list(r.members) for r in results]
    priors: dict[str, dict[str, float]] = {}
    for member_id, where in answers.items():
        rows = np.array([[float(results[i].members[j].probs.get(lab, 0.0)) for lab in labels]  # type: ignore[union-attr]
                         for i, j in where])
        fit = _fit(mode, rows / rows.sum(axis=1, keepdims=True),
                   [_index(labels, results[i].original) for i, _ in where] if mode == "given" else [])
        priors[member_id] = {lab: round(float(v), 6) for lab, v in zip(labels, fit.prior)}
        for (i, j), row in zip(where, fit.posteriors):
            members[i][j] = replace(results[i].members[j], probs=dict(zip(labels, map(float, row))))
    skip = set(left_out)
    out = []
    for result, rows_ in zip(results, members):
        kept: list[MemberResult] = [m for m in rows_ if m.probs is not None and m.member_id not in skip]
        decision = verdict([m.probs for m in kept], [model_of(m.member_id) for m in kept], result.original,
                           rule) if kept and result.prediction is not None else None
        if decision is None:
            out.append(replace(result, members=tuple(rows_)))
            continue
        out.append(replace(result, members=tuple(rows_), prediction=decision.prediction,
                           confidence=decision.confidence, probs=decision.probs, flagged=decision.flagged,
                           insufficient=decision.insufficient))
    return out, {"mode": mode, "priors": priors}

