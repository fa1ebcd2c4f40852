"""Contextual calibration (Zhao et al. 2021, "Calibrate Before Use"): a judge's lean towards an option cancelled.

A judge that prefers one option (its letter, its place, its wording) gives it mass whatever the item says.
Asked the same question about a *content-free* item (every input ``"N/A"``, then every input empty), it
answers with that preference alone; the mean of those answers is its prior ``p_cf``. Each of the judge's
answers is then divided by it and renormalised: ``p'(y) ∝ p(y) / p_cf(y)`` (the paper's ``W = diag(p_cf)^-1``,
``b = 0``). No label of the data under test is used, so the audit stays honest.

The prior belongs to one member (model x prompt) asked one question (one option order: each order has its own
letters, so its own prior): the engine of that question asks :data:`CONTENT_FREE` once per member and run,
through the call cache (a re-run asks nothing). A confident-learning member is not a judge with a prior
and keeps its answers. The mode travels in the spec (``TaskSpec.extra["calibration"]``) and in the prompt
parameters of the single-choice families, so the model version changes when it changes while the cached calls
of the items stay valid (their prompts do not change). ``bench/bench_judges.py --calibration`` measures it.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from backend.providers.base import ClassDistribution
from backend.task.dataset import Item
from backend.task.calibration_setting import (CALIBRATION_ENV, EXTRA_KEY, MODES, calibration_of, check_mode,
                                              resolve_calibration, with_calibration)
from backend.task.spec import TaskSpec

__all__ = ["CALIBRATION_ENV", "CONTENT_FREE", "EXTRA_KEY", "MODES", "calibrate", "calibration_of",
           "content_free_items", "mean_distribution", "resolve_calibration", "with_calibration"]

#: The texts every input of a content-free item holds (Zhao et al. average "N/A", "" and "[MASK]").
CONTENT_FREE = ("N/A", "")
#: The smallest prior a label is divided by: a label the judge never gives without content must not be
#: multiplied without bound.
FLOOR = 1e-6


def content_free_items(spec: TaskSpec) -> list[Item]:
    """One item per :data:`CONTENT_FREE` text, every input of ``spec`` holding it."""
    return [Item(id=f"content-free:{text or 'empty'}", original=None, fields={var: text for var in spec.fields})
            for text in CONTENT_FREE]


def mean_distribution(dists: Sequence[Mapping[str, float]], labels: Sequence[str]) -> dict[str, float]:
    """The mean of distributions over ``labels`` (each already normalised)."""
    if not dists:
        raise ValueError("no distribution to average")
    return {lab: sum(float(d.get(lab, 0.0)) for d in dists) / len(dists) for lab in labels}


def calibrate(probs: Mapping[str, float], prior: Mapping[str, float], labels: Sequence[str]) -> dict[str, float]:
    """``probs`` divided by ``prior`` label by label (floored at :data:`FLOOR`), renormalised over ``labels``.

    A uniform prior leaves ``probs`` as they were; ``probs`` equal to the prior become uniform.
    """
    weighted = {lab: float(probs.get(lab, 0.0)) / max(float(prior.get(lab, 0.0)), FLOOR) for lab in labels}
    total = sum(weighted.values())
    if total <= 0:
        raise ValueError(f"no probability mass on the labels {list(labels)}")
    return {lab: value / total for lab, value in weighted.items()}


def content_free_prior(spec: TaskSpec, ask: Callable[[Item], ClassDistribution | None],
                       to_labels: Callable[[ClassDistribution], dict[str, float]]) -> dict[str, float] | None:
    """A member's prior: the mean of its label distributions on :func:`content_free_items` (None if none came).

    ``ask`` returns the member's answer to an item (from the cache or a call; None when the call failed);
    ``to_labels`` normalises it over the labels as the engine normalises every answer (ValueError: no mass).
    """
    dists = []
    for item in content_free_items(spec):
        dist = ask(item)
        if dist is None:
            continue
        try:
            dists.append(to_labels(dist))
        except ValueError:
            continue
    return mean_distribution(dists, spec.labels) if dists else None
