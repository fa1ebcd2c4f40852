"""Simulated projects with a planted truth, to check the truth model's figures against what they estimate.

Each project has ``n_items`` items with a true label drawn uniformly from ``labels``. Named annotators label
each item (``per_item`` of them, drawn at random), each right with its planted accuracy and otherwise saying
another label at random. Each judge *model* is right with its planted accuracy (its belief is the truth, else
another label at random) and answers through several *prompts*: every prompt puts the model's own mass ``u``
(higher when the model is right) on its belief, jittered a little per prompt, and splits the rest among the
other labels in the model's proportions, so one model's prompts are strongly correlated (they share the
belief and the split) and every prompt's top label, and their average's, is the model's belief. A source's
planted top-1 accuracy is therefore known exactly: the annotator's, or the model's for the model and each of
its prompts. ``reviewed`` items get their true label as an anchor (a random review).

Used by ``bench/bench_source_accuracy.py`` (coverage of the sources' intervals, calibration of the
posterior) and, with few replicates, by the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from backend.review.triage import ItemEvidence

__all__ = ["SimulatedProject", "SourceScenario", "simulate_project"]


@dataclass(frozen=True)
class SourceScenario:
    """What a simulated project holds: its size, its annotators' and judge models' planted accuracies."""

    n_items: int = 400
    labels: tuple[str, ...] = ("a", "b", "c")
    annotators: tuple[float, ...] = (0.85, 0.8, 0.75, 0.7, 0.65, 0.6)
    per_item: int = 3
    models: tuple[float, ...] = (0.8, 0.72, 0.65)
    prompts: int = 3
    jitter: float = 0.03
    reviewed: int = 0
    #: the range of the mass a model puts on its belief when it is right, and when it is wrong
    right_mass: tuple[float, float] = (0.9, 0.99)
    wrong_mass: tuple[float, float] = (0.8, 0.97)

    def __post_init__(self) -> None:
        if self.n_items < 2 or len(self.labels) < 2:
            raise ValueError("a simulated project needs at least two items and two labels")
        if not 0 <= self.per_item <= len(self.annotators):
            raise ValueError("per_item must be between 0 and the number of annotators")
        if self.prompts < 1 or not 0 <= self.reviewed <= self.n_items:
            raise ValueError("prompts must be at least 1 and reviewed at most n_items")
        for acc in (*self.annotators, *self.models):
            if not 0 <= acc <= 1:
                raise ValueError("planted accuracies must be in [0, 1]")
        for low, high in (self.right_mass, self.wrong_mass):
            if not 0.5 <= low <= high <= 0.99:
                raise ValueError("a model's mass on its belief must lie in [0.5, 0.99] (it stays its top label)")


@dataclass(frozen=True)
class SimulatedProject:
    """The evidence as the triage reads it, the truth, the anchors and every source's planted accuracy."""

    evidence: tuple[ItemEvidence, ...]
    truth: dict[str, str]
    anchors: dict[str, str]
    planted: dict[str, float] = field(default_factory=dict)  # source name (as the truth model names it) -> accuracy


def _other(rng: np.random.Generator, labels: tuple[str, ...], label: str) -> str:
    rest = [x for x in labels if x != label]
    return rest[int(rng.integers(len(rest)))]


def simulate_project(scenario: SourceScenario, rng: np.random.Generator) -> SimulatedProject:
    """One project drawn from ``scenario`` (see the module docstring)."""
    labels, k = scenario.labels, len(scenario.labels)
    evidence, truth = [], {}
    for i in range(scenario.n_items):
        item, true = f"i{i}", labels[int(rng.integers(k))]
        truth[item] = true
        said = {}
        for a in rng.choice(len(scenario.annotators), size=scenario.per_item, replace=False):
            right = rng.random() < scenario.annotators[a]
            said[f"w{a}"] = true if right else _other(rng, labels, true)
        members = {}
        for m, acc in enumerate(scenario.models):
            right = rng.random() < acc
            belief = true if right else _other(rng, labels, true)
            u = rng.uniform(*(scenario.right_mass if right else scenario.wrong_mass))
            split = rng.dirichlet(np.ones(k - 1))
            for p in range(scenario.prompts):
                mass = float(np.clip(u + rng.normal(0, scenario.jitter), 0.5, 0.99))
                rest = iter((1 - mass) * split)
                members[f"sim:m{m}/p{p}@v1"] = {lab: mass if lab == belief else float(next(rest)) for lab in labels}
        original = said[next(iter(said))] if said else true
        evidence.append(ItemEvidence(item, original, said, members))
    order = rng.permutation(scenario.n_items)[:scenario.reviewed]
    anchors = {f"i{i}": truth[f"i{i}"] for i in order}
    planted = {f"annotator:w{a}": acc for a, acc in enumerate(scenario.annotators)}
    for m, acc in enumerate(scenario.models):
        planted[f"sim:m{m}"] = acc
        planted.update({f"sim:m{m}/p{p}@v1": acc for p in range(scenario.prompts)})
    return SimulatedProject(tuple(evidence), truth, anchors, planted)
