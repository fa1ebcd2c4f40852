"""The contract every LLM provider meets: one rendered prompt in, class probabilities out.

Keeping providers this narrow lets the engine own caching, concurrency, retries and averaging once,
for every backend (in-process GGUF, OpenAI-protocol servers, Gemini, sampling fallback).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable


@dataclass(frozen=True)
class ClassDistribution:
    """One member's answer for one item.

    Attributes
    ----------
    probs : mapping of label to float
        Normalised over the label set (sums to 1).
    raw_mass : float
        Total probability the model put on the class tokens before normalising; a low value means
        the model mostly wanted to say something else, so the normalised answer is weak evidence.
    method : str
        How the probabilities were read: ``"logits"`` (full distribution), ``"top_logprobs"``,
        ``"chosen_logprob"`` (only the generated token's logprob: p and 1 - p), ``"top_logprobs_fallback"``
        (no class token generated first, read from that position's top alternatives) or ``"sampling"``.
    text : str or None
        The generated text, when the provider generated any.
    usage : mapping
        Provider-reported token counts etc., for cost accounting.
    """

    probs: Mapping[str, float]
    raw_mass: float
    method: str
    text: str | None = None
    usage: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "probs": dict(self.probs),
            "raw_mass": self.raw_mass,
            "method": self.method,
            "text": self.text,
            "usage": dict(self.usage),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ClassDistribution":
        return cls(
            probs={str(k): float(v) for k, v in data["probs"].items()},
            raw_mass=float(data["raw_mass"]),
            method=str(data["method"]),
            text=data.get("text"),
            usage=dict(data.get("usage") or {}),
        )


class ProviderError(Exception):
    """A call failed. ``retryable`` says whether backing off and trying again can help.

    ``reason`` is a short stable code that is counted in summaries (``timeout``, ``rate_limited``,
    ``server_error``, ``connection``, ``bad_request``, ``auth``, ``no_class_token``, ...).
    Messages must never contain API keys or tokens.
    """

    def __init__(self, reason: str, message: str, *, retryable: bool = False, retry_after: float | None = None):
        super().__init__(message)
        self.reason = reason
        self.retryable = retryable
        self.retry_after = retry_after


class NoClassTokenError(ProviderError):
    """The model answered, but no class token appeared where the answer should be."""

    def __init__(self, message: str, *, text: str | None = None):
        super().__init__("no_class_token", message, retryable=False)
        self.text = text


@runtime_checkable
class Provider(Protocol):
    """What the engine needs from a provider.

    ``classify`` must be safe to call from several threads at once (the engine bounds how many);
    a provider that is not (the in-process llama.cpp model) serialises internally.
    """

    name: str  # "local", "openai", "gemini", ...
    model: str
    #: Whether the judge can be sent images (``images=``); absent means False (:func:`accepts_images`).
    # accepts_images: bool

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        """Return class probabilities for ``labels`` given the fully rendered ``prompt``.

        A provider that sees images also takes ``images: Sequence[ImagePart] = ()`` (:mod:`backend.providers.image_part`),
        sent before the prompt's text; the engine passes it only to providers whose ``accepts_images`` is true.
        Raises ProviderError (or NoClassTokenError) on failure.
        """
        ...

    def cache_params(self) -> Mapping[str, Any]:
        """Everything besides the prompt that changes the answer (temperature, top_logprobs,
        base_url, n samples...). Enters the cache key; must not contain secrets."""
        ...


def accepts_images(provider: object) -> bool:
    """Whether ``provider`` can be sent images (its ``accepts_images`` attribute; absent: False)."""
    return bool(getattr(provider, "accepts_images", False))
