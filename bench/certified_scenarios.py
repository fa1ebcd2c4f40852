"""Populations for ``bench/bench_certified.py``: every item's P(label wrong) score and whether its label is wrong.

Real scores only where the truth is real and the scores come from a source blind to it:

* ``rte-crowd``: Snow et al. 2008 RTE (/work/shared/data/snow2008, 800 items × 10 crowd labels, expert
  gold). The audited label is the first worker's; the score is the share of the other 9 workers who
  disagree with it (a crowd of judges); wrong = the label differs from the gold.
* ``snli-crowd``: ChaosNLI SNLI (/work/shared/data/chaosnli, 1,514 items). The audited label is the
  original SNLI label; the score is the share of the 5 original annotators who gave another label;
  wrong = it differs from the majority of 100 new votes.
* ``tickets-cleanlab``: the demo's support tickets (:mod:`backend.demo.tickets`, self-written, planted
  errors) scored by the confident-learning member's out-of-fold probabilities
  (:func:`backend.confident.classifier.out_of_fold_probs`): score = 1 − P(given label).
* ``…-rare``: the same real scores with the wrong labels thinned at random to 1–2 % of the items.
* ``chance``: a judge at chance (scores uniform, independent of the truth) at several error rates.

No cached answers of the real local judge (``local:qwen2.5-coder-1.5b``) exist in this repository and
the model is not installed here, so it has no row; the crowd rows stand for a judge of known quality.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from backend.confident.classifier import out_of_fold_probs
from backend.demo.tickets import LABELS, ticket_records

DATA = Path("/work/shared/data")


@dataclass(frozen=True)
class Population:
    """Scores and truths of N items (and optional strata labels for a stratified design)."""

    name: str
    scores: np.ndarray
    wrong: np.ndarray

    @property
    def rate(self) -> float:
        return float(self.wrong.mean())


def rte_crowd() -> Population:
    votes: dict[str, list[int]] = defaultdict(list)
    gold: dict[str, int] = {}
    with (DATA / "snow2008" / "rte.standardized.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            votes[row["orig_id"]].append(int(row["response"]))
            gold[row["orig_id"]] = int(row["gold"])
    scores, wrong = [], []
    for key, labels in votes.items():
        label, others = labels[0], labels[1:]
        scores.append(sum(o != label for o in others) / len(others))
        wrong.append(label != gold[key])
    return Population("rte-crowd", np.array(scores), np.array(wrong, dtype=bool))


def snli_crowd() -> Population:
    names = {"entailment": "e", "neutral": "n", "contradiction": "c"}
    scores, wrong = [], []
    for line in (DATA / "chaosnli" / "chaosNLI_snli.jsonl").read_text().splitlines():
        row = json.loads(line)
        old = [names.get(v, v) for v in row["old_labels"]]
        scores.append(sum(v != row["old_label"] for v in old) / len(old))
        wrong.append(row["old_label"] != row["majority_label"])
    return Population("snli-crowd", np.array(scores), np.array(wrong, dtype=bool))


def tickets_cleanlab(*, n: int = 1500, error_rate: float = 0.1, seed: int = 7) -> Population:
    records = ticket_records(n=n, error_rate=error_rate, seed=seed)
    labels = [LABELS.index(r["label"]) for r in records]
    probs = out_of_fold_probs([{"text": r["text"]} for r in records], labels, list(LABELS))
    scores = 1.0 - probs[np.arange(len(labels)), labels]
    return Population(f"tickets-cleanlab {100 * error_rate:g}%", np.clip(scores, 0, 1),
                      np.array([r["planted"] for r in records], dtype=bool))


def thinned(pop: Population, rate: float, *, seed: int = 0) -> Population:
    """Keep every right label and a random share of the wrong ones, so that ``rate`` of the items are wrong."""
    rng = np.random.default_rng(seed)
    right, bad = np.flatnonzero(~pop.wrong), np.flatnonzero(pop.wrong)
    keep_bad = rng.choice(bad, size=max(1, round(rate * len(right) / (1 - rate))), replace=False)
    idx = np.sort(np.concatenate([right, keep_bad]))
    return Population(f"{pop.name} rare {100 * rate:g}%", pop.scores[idx], pop.wrong[idx])


def at_chance(*, n: int, rate: float, seed: int = 0) -> Population:
    rng = np.random.default_rng(seed)
    wrong = np.zeros(n, dtype=bool)
    wrong[rng.choice(n, size=round(rate * n), replace=False)] = True
    return Population(f"judge at chance {100 * rate:g}%", rng.uniform(size=n), wrong)


def populations() -> list[Population]:
    rte, snli = rte_crowd(), snli_crowd()
    return [rte, snli, tickets_cleanlab(), thinned(rte, 0.02), thinned(snli, 0.015),
            tickets_cleanlab(n=3000, error_rate=0.015), at_chance(n=2000, rate=0.015),
            at_chance(n=2000, rate=0.05), at_chance(n=2000, rate=0.2)]
