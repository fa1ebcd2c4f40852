"""TEST/BENCH-ONLY synthetic judge with realistic agreement, for early-exit measurements.

Not an LLM. It looks up which item a prompt is about (by a text the item alone contains), favours a
given "true" label for it with a confident answer, and on a share of (prompt, item) pairs, chosen by
the prompt's hash, answers a different label instead: most members right and confident, some wrong.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

from backend.providers.base import ClassDistribution


class SyntheticJudge:
    """``truth``: item text -> label the judge leans to; ``wrong``: share of answers on another label."""

    name = "synthetic"

    def __init__(self, truth: Mapping[str, str], *, model: str = "synthetic-1", wrong: float = 0.1,
                 confidence: float = 0.9, delay: float = 0.0):
        self.truth = dict(truth)
        self.model = model
        self.wrong = wrong
        self.confidence = confidence
        self.delay = delay
        self.calls = 0

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        import time

        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        digest = hashlib.sha256(f"{self.model}\n{prompt}".encode("utf-8")).digest()
        label = next((lab for text, lab in self.truth.items() if text in prompt), labels[0])
        if digest[0] / 255.0 < self.wrong:
            others = [lab for lab in labels if lab != label]
            label = others[digest[1] % len(others)]
        sharp = self.confidence - 0.1 * (digest[2] / 255.0)  # 0.8-0.9 on its answer
        rest = (1.0 - sharp) / (len(labels) - 1)
        probs = {lab: (sharp if lab == label else rest) for lab in labels}
        return ClassDistribution(probs=probs, raw_mass=0.95, method="logits",
                                 usage={"prompt_tokens": len(prompt) // 4, "completion_tokens": 1})

    def cache_params(self) -> Mapping[str, Any]:
        return {"kind": "synthetic", "wrong": self.wrong, "confidence": self.confidence}
