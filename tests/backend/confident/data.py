"""Real labelled text for the confident-learning tests: ChaosNLI from ../shared (when present) and the demo tickets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
CHAOSNLI = "data/chaosnli/chaosNLI_snli.jsonl"
SHORT = {"e": "entailment", "n": "neutral", "c": "contradiction"}


def chaosnli_rows() -> list[dict]:
    """ChaosNLI SNLI (Nie, Zhou & Bansal 2020, CC BY-NC 4.0; ../shared/data/README.md): never copied into the repo."""
    for shared in (REPO.parent / "shared", Path("/work/shared")):
        path = shared / CHAOSNLI
        if path.is_file():
            rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
            return [{"id": r["uid"], "premise": r["example"]["premise"], "hypothesis": r["example"]["hypothesis"],
                     "clean": SHORT[r["majority_label"]], "original": SHORT[r["old_label"]]} for r in rows]
    pytest.skip("ChaosNLI not found beside the checkout (../shared/data/chaosnli)")


def planted(labels: list[str], classes: tuple[str, ...], *, rate: float, seed: int) -> tuple[list[str], np.ndarray]:
    """``labels`` with round(rate * n) of them replaced by another class; the mask of the replaced ones."""
    rng = np.random.default_rng(seed)
    noisy, mask = list(labels), np.zeros(len(labels), bool)
    for i in rng.choice(len(labels), size=round(rate * len(labels)), replace=False):
        noisy[i] = rng.choice([c for c in classes if c != labels[i]])
        mask[i] = True
    return noisy, mask
