"""TEST-ONLY judge with a planted letter preference, to check that asking in several option orders cancels it.

Wraps a real provider (the embedded model in the tests) and moves ``share`` of every answer's mass onto
one letter (``A``): a judge that favours the first option whatever it says. With ``inner`` None it answers
that letter alone (``share`` on it, the rest spread evenly), a pure position preference.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from backend.providers.base import ClassDistribution
from backend.scoring.members import MemberSpec, build_members


class LetterBiasedJudge:
    """``inner``'s answer mixed with a point mass on ``letter``: ``(1 - share) * inner + share * [letter]``."""

    name = "letter-biased"

    def __init__(self, inner: Any = None, *, letter: str = "A", share: float = 0.5):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"share must be within [0, 1], got {share!r}")
        self.inner, self.letter, self.share = inner, letter, share
        self.model = f"biased-{getattr(inner, 'model', 'none')}"
        self.prompts: list[str] = []

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        self.prompts.append(prompt)
        if self.inner is None:
            base = {lab: 1.0 / len(labels) for lab in labels}
        else:
            base = dict(self.inner.classify(prompt, labels, timeout=timeout).probs)
        probs = {lab: (1.0 - self.share) * base[lab] + (self.share if lab == self.letter else 0.0) for lab in labels}
        return ClassDistribution(probs=probs, raw_mass=1.0, method="logits")

    def cache_params(self) -> Mapping[str, Any]:
        inner = dict(self.inner.cache_params()) if self.inner is not None else {}
        return {"kind": "letter-biased", "letter": self.letter, "share": self.share, "inner": inner}


def team(spec: Any, provider: Any, *, prompts: Sequence[str] | None = None) -> list:
    """``provider`` as the ensemble's one member, with every prompt of ``spec`` (or ``prompts``)."""
    entry = MemberSpec(provider=provider.name, model=provider.model, prompts=tuple(prompts) if prompts else None)
    return build_members([entry], spec, provider_factory=lambda e: provider)
