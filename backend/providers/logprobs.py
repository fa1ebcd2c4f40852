"""Class probabilities from an API's per-token logprobs (Nahum et al. 2024, App. C.3).

API models are run at temperature 0 with ``max_tokens=2``: the first generated token may be a
space or newline, so the answer is the first of the first two tokens that is a class token. At that
position, ``top_logprobs`` (when the API returns them) give every listed label's probability; labels
not in the top-k get 0. When only the chosen token's logprob is known, p_t = exp(logprob) goes to
the chosen label and 1 - p_t to the other label (binary) or, for more than two labels, is spread
evenly over the other labels -- the paper only defines the binary case, and an even spread claims
nothing about which wrong label is likelier. OpenAI and Gemini share this code.

Chat models often start with a word ("The answer is...") instead of the class token. The class tokens
are then usually still among that first position's ``top_logprobs``: the distribution is read there
(method ``top_logprobs_fallback``: what the model would have answered had it answered at once).
``no_class_token`` remains only when no class token is generated nor listed in any position's top-k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from backend.providers.base import ClassDistribution, NoClassTokenError, ProviderError

#: How many generated tokens may precede the class token (the paper's max_tokens=2).
ANSWER_WINDOW = 2


@dataclass(frozen=True)
class TokenPosition:
    """One generated token: its text, its logprob (None if unknown), and the top alternatives."""

    token: str
    logprob: float | None
    top: tuple[tuple[str, float], ...] = ()


def class_of(token: str | None, labels: Sequence[str]) -> str | None:
    """The label a token spells (tokens may carry spaces or a newline), or None."""
    if token is None:
        return None
    stripped = token.strip()
    return stripped if stripped in labels else None


def check_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """Labels as a tuple of distinct strings (at least two), else ValueError."""
    out = tuple(str(label) for label in labels)
    if len(out) < 2 or len(set(out)) != len(out):
        raise ValueError(f"labels must be at least two distinct strings, got {list(labels)!r}")
    return out


def check_api_options(model: str, *, top_k: tuple[str, int], max_tokens: tuple[str, int], temperature: float) -> None:
    """Validate what every logprob-reading API provider takes; ``top_k``/``max_tokens`` are
    (option name, value) so the ValueError names the provider's own option."""
    if not model:
        raise ValueError("model must be a non-empty name")
    if not 0 <= top_k[1] <= 20:
        raise ValueError(f"{top_k[0]} must be in 0..20, got {top_k[1]}")
    if max_tokens[1] < 1:
        raise ValueError(f"{max_tokens[0]} must be >= 1, got {max_tokens[1]}")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")


def distribution_from_positions(
    positions: Sequence[TokenPosition],
    labels: Sequence[str],
    *,
    text: str | None,
    usage: Mapping[str, Any] | None = None,
) -> ClassDistribution:
    """The class distribution at the first class token among the first ``ANSWER_WINDOW`` tokens.

    Raises
    ------
    NoClassTokenError
        No class token was generated in the window.
    ProviderError
        ``no_logprobs``: the class token came without any logprob to build probabilities from.
    """
    labels = check_labels(labels)
    for pos in positions[:ANSWER_WINDOW]:
        chosen = class_of(pos.token, labels)
        if chosen is not None:
            return _at_position(pos, chosen, labels, text=text, usage=usage or {})
    for pos in positions[:ANSWER_WINDOW]:
        fallback = _from_top_list(pos, labels, text=text, usage=usage or {})
        if fallback is not None:
            return fallback
    raise NoClassTokenError(f"no class token {list(labels)} in the first {ANSWER_WINDOW} tokens: {text!r}", text=text)


def _from_top_list(
    pos: TokenPosition, labels: tuple[str, ...], *, text: str | None, usage: Mapping[str, Any]
) -> ClassDistribution | None:
    """The class distribution among a position's top alternatives, or None when none is a class token."""
    mass = dict.fromkeys(labels, 0.0)
    for token, logprob in pos.top:
        label = class_of(token, labels)
        if label is not None and logprob is not None:
            mass[label] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0.0:
        return None
    probs = {label: m / total for label, m in mass.items()}
    return ClassDistribution(probs, raw_mass=min(total, 1.0), method="top_logprobs_fallback", text=text,
                             usage=dict(usage))


def _at_position(
    pos: TokenPosition, chosen: str, labels: tuple[str, ...], *, text: str | None, usage: Mapping[str, Any]
) -> ClassDistribution:
    mass = dict.fromkeys(labels, 0.0)
    for token, logprob in pos.top:
        label = class_of(token, labels)
        if label is not None and logprob is not None:
            mass[label] += math.exp(logprob)
    if pos.top and mass[chosen] == 0.0 and pos.logprob is not None:
        mass[chosen] = math.exp(pos.logprob)  # the chosen token is missing from its own top-k list
    total = sum(mass.values())
    if total > 0.0:
        probs = {label: m / total for label, m in mass.items()}
        return ClassDistribution(probs, raw_mass=min(total, 1.0), method="top_logprobs", text=text, usage=dict(usage))
    if pos.logprob is None:
        raise ProviderError("no_logprobs", "the response carries no logprobs; use the sampling option", retryable=False)
    p_chosen = min(math.exp(pos.logprob), 1.0)
    rest = (1.0 - p_chosen) / (len(labels) - 1)
    probs = {label: (p_chosen if label == chosen else rest) for label in labels}
    return ClassDistribution(probs, raw_mass=p_chosen, method="chosen_logprob", text=text, usage=dict(usage))
