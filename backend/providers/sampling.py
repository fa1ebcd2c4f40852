"""Class distributions estimated from samples, for providers or servers without logprobs.

Nahum et al. read probabilities from logprobs; where a server gives none, n answers sampled at
temperature > 0 approximate the same distribution (the share of samples naming each label).
Any provider with a ``sample_texts`` method can be wrapped (OpenAI protocol, Gemini, local GGUF).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable, Mapping, Protocol, Sequence

from backend.providers.image_part import ImagePart
from backend.providers.base import ClassDistribution, NoClassTokenError, accepts_images
from backend.providers.logprobs import check_labels


class Sampler(Protocol):
    """A provider that can draw answers at a temperature."""

    name: str
    model: str

    def sample_texts(
        self, prompt: str, *, n: int, temperature: float, seed: int | None, max_tokens: int, timeout: float
    ) -> list[str]: ...

    def cache_params(self) -> Mapping[str, Any]: ...


_WORD = re.compile(r"\w+")
_LOWER_WORD_NEXT = re.compile(r"[ \t]+[a-z']")  # a letter followed, on its line, by a lower-case word


def collect_samples(draw: Callable[[int, int | None], list[str]], *, n: int, seed: int | None) -> list[str]:
    """Call ``draw(count, seed)`` until ``n`` texts are in: APIs that cap or ignore their ``n``
    parameter (llama.cpp server ignores it, Gemini caps it at 8) are topped up, call i with seed + i."""
    texts: list[str] = []
    for call in range(n):
        if len(texts) >= n:
            break
        texts += draw(n - len(texts), None if seed is None else seed + call)[: n - len(texts)]
    return texts


def first_label(text: str, labels: Sequence[str]) -> str | None:
    """The first word of ``text`` that is a label (the answer may follow a space or newline).

    Option letters (the generic prompts' ``A``..``Z``) are also English words: in "A good review" or
    "I think it is B" the article and the pronoun are not answers. A lone capital letter therefore
    counts only where it stands as an answer — at the end, before punctuation or a line break, or
    before a capitalised word (``B Negative``) — and is skipped before a lower-case word.
    """
    text = text or ""
    for match in _WORD.finditer(text):
        word = match.group()
        if word not in labels:
            continue
        if _is_letter(word) and _LOWER_WORD_NEXT.match(text, match.end()):
            continue  # "A good ...", "I think ...": a word of a sentence, not an option
        return word
    return None


def _is_letter(word: str) -> bool:
    return len(word) == 1 and "A" <= word <= "Z"


def distribution_from_samples(texts: Sequence[str], labels: Sequence[str]) -> ClassDistribution:
    """Empirical class distribution of sampled answers.

    ``raw_mass`` is the share of samples that named a label at all (like the logits' class-token mass).

    Raises
    ------
    NoClassTokenError
        No sample named a label (or there were no samples).
    """
    labels = check_labels(labels)
    found = [first_label(t, labels) for t in texts]
    counts = Counter(label for label in found if label is not None)
    hits = sum(counts.values())
    if hits == 0:
        shown = [t for t in texts[:3]]
        raise NoClassTokenError(f"none of {len(texts)} samples named a label {list(labels)}: {shown!r}",
                                text=texts[0] if texts else None)
    return ClassDistribution(
        probs={label: counts.get(label, 0) / hits for label in labels},
        raw_mass=hits / len(texts),
        method="sampling",
        text=texts[0],
        usage={"samples": len(texts), "samples_with_label": hits},
    )


class SamplingProvider:
    """Wraps a ``Sampler``: ``n`` samples at ``temperature`` -> empirical class distribution.

    Parameters
    ----------
    inner : Sampler
        The provider that draws the samples.
    n : int
        Samples per item.
    temperature : float
        Sampling temperature, > 0.
    seed : int or None
        Base seed (sample calls use seed, seed + 1, ...) for repeatable runs where the server honours it.
    max_tokens : int
        Tokens per sample; the label is read from the first words.
    """

    def __init__(self, inner: Sampler, *, n: int = 10, temperature: float = 1.0, seed: int | None = None,
                 max_tokens: int = 2):
        if not callable(getattr(inner, "sample_texts", None)):
            raise ValueError(f"{type(inner).__name__} cannot sample (no sample_texts method)")
        if n < 1 or temperature <= 0 or max_tokens < 1:
            raise ValueError("sampling needs n >= 1, temperature > 0 and max_tokens >= 1")
        self.inner = inner
        #: Sees images exactly when the wrapped provider does (it draws the samples).
        self.accepts_images = accepts_images(inner)
        self.name = inner.name
        self.model = inner.model
        self.n = n
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens

    def cache_params(self) -> Mapping[str, Any]:
        """The inner provider's parameters plus the sampling plan (a different seed is a different answer)."""
        return {
            "inner": dict(self.inner.cache_params()),
            "sampling": {
                "n": self.n, "temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens,
            },
        }

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float,
                 images: Sequence[ImagePart] = ()) -> ClassDistribution:
        """Draw ``n`` answers and count the labels they start with (``images`` go to every draw)."""
        labels = check_labels(labels)
        with_images = {"images": tuple(images)} if images else {}  # text-only samplers take no images=
        texts = self.inner.sample_texts(prompt, n=self.n, temperature=self.temperature, seed=self.seed,
                                        max_tokens=self.max_tokens, timeout=timeout, **with_images)
        return distribution_from_samples(texts, labels)
