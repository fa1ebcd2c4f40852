"""One place that turns a member's (kind, model, base_url, options) into a Provider.

The engine, the Label Studio backend and the probes all build providers from config files and
``--member`` flags; keeping the mapping here means a new provider kind is added in one spot.
SDK modules are imported lazily so the local default runs without cloud SDKs being importable.
"""

from __future__ import annotations

import inspect
from typing import Any, Mapping

from backend.providers.base import Provider

KINDS = ("local", "openai", "gemini")


def make_provider(
    kind: str,
    model: str,
    *,
    base_url: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Provider:
    """Build the provider for one ensemble member.

    Parameters
    ----------
    kind : str
        ``"local"`` (in-process GGUF), ``"openai"`` (any OpenAI-protocol server) or ``"gemini"``.
    model : str
        Model name (``"smollm2"`` or a ``.gguf`` path for ``local``).
    base_url : str or None
        Server URL for ``openai``/``gemini`` (e.g. ``http://127.0.0.1:8000/v1``); not used by ``local``.
    options : mapping or None
        Keyword options of the provider's constructor (e.g. ``{"top_logprobs": 5}``), plus
        ``"sampling": {"n": 10, "temperature": 1.0, "seed": 0}`` to estimate the distribution from
        samples instead of logprobs (for servers without logprobs).

    Raises
    ------
    ValueError
        Unknown kind or option, or an option the provider rejects.
    """
    opts = dict(options or {})
    sampling = opts.pop("sampling", None)
    if kind == "local":
        if base_url:
            raise ValueError("the local provider runs in-process and takes no base_url")
        from backend.providers.local_gguf import LocalGGUFProvider

        provider: Any = _construct(LocalGGUFProvider, model, opts)
    elif kind == "openai":
        from backend.providers.openai_compat import OpenAIProvider

        provider = _construct(OpenAIProvider, model, {**opts, "base_url": base_url})
    elif kind == "gemini":
        from backend.providers.gemini import GeminiProvider

        provider = _construct(GeminiProvider, model, {**opts, "base_url": base_url})
    else:
        raise ValueError(f"unknown provider kind {kind!r}; expected one of {KINDS}")
    if sampling is not None:
        from backend.providers.sampling import SamplingProvider

        if not isinstance(sampling, Mapping):
            raise ValueError("options['sampling'] must be a mapping like {'n': 10, 'temperature': 1.0}")
        provider = _construct(SamplingProvider, provider, dict(sampling))
    return provider


def _construct(cls: type, first: Any, kwargs: dict[str, Any]) -> Any:
    """Call ``cls(first, **kwargs)``; an unknown keyword becomes a ValueError that names it."""
    try:
        inspect.signature(cls).bind(first, **kwargs)
    except TypeError as exc:
        raise ValueError(f"bad options for {cls.__name__}: {exc}") from None
    return cls(first, **kwargs)
