"""One place that turns a member's (kind, model, base_url, options) into a Provider.

Provider classes register themselves with :func:`register` under their class-level ``name``; this
module only knows which module holds each kind and which environment variables hold its default API
keys (:data:`PROVIDER_MODULES`, :data:`DEFAULT_KEY_VARIABLES`), and imports the module the first time
that kind is asked for, so the local default runs without the cloud SDKs' import cost. A new provider is
one new module with ``@register`` on its class, plus its line here (the settings redact its keys from it).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Mapping, TypeVar

from backend.providers.base import Provider
from backend.providers.provider_settings import ProviderSettings
from backend.providers.sampling import SamplingProvider

#: Kind -> module whose provider class registers itself under that name when imported.
PROVIDER_MODULES = {
    "local": "backend.providers.local_gguf",
    "openai": "backend.providers.openai_compat",
    "gemini": "backend.providers.gemini",
    "cleanlab": "backend.confident.provider",  # confident learning: a classifier fitted on the audited labels
}

#: Kind -> environment variables holding its default API key, in the order they are tried. Sent only to
#: the provider's official endpoint (see each provider); every configured value is redacted.
DEFAULT_KEY_VARIABLES: Mapping[str, tuple[str, ...]] = {
    "local": (),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "cleanlab": (),
}

#: Constructor keywords the registry fills from :class:`ProviderSettings` (never a member's option).
SETTINGS_KEYWORDS = ("api_keys", "models_dir")

_CLASSES: dict[str, type] = {}
T = TypeVar("T", bound=type)


def register(cls: T) -> T:
    """Class decorator: make ``cls`` the provider of kind ``cls.name``.

    A class whose ``takes_base_url`` is False (the in-process model) rejects a ``base_url``.
    """
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{cls.__name__} needs a class-level name to register")
    _CLASSES[name] = cls
    return cls


def default_key_variables(kind: str | None = None) -> tuple[str, ...]:
    """The default key variables of ``kind`` (None: of every kind, for redaction)."""
    if kind is not None:
        return DEFAULT_KEY_VARIABLES.get(kind, ())
    return tuple(name for names in DEFAULT_KEY_VARIABLES.values() for name in names)


def kinds() -> tuple[str, ...]:
    """The provider kinds that exist, sorted."""
    return tuple(sorted(set(PROVIDER_MODULES) | set(_CLASSES)))


def provider_class(kind: str) -> type:
    """The class registered under ``kind`` (ValueError for an unknown kind)."""
    if kind not in _CLASSES and kind in PROVIDER_MODULES:
        importlib.import_module(PROVIDER_MODULES[kind])
    try:
        return _CLASSES[kind]
    except KeyError:
        raise ValueError(f"unknown provider kind {kind!r}; expected one of {kinds()}") from None


def make_provider(
    kind: str,
    model: str,
    *,
    base_url: str | None = None,
    options: Mapping[str, Any] | None = None,
    settings: ProviderSettings | None = None,
) -> Provider:
    """Build the provider for one ensemble member.

    Parameters
    ----------
    kind : str
        A registered kind: ``"local"`` (in-process GGUF), ``"openai"`` (any OpenAI-protocol server),
        ``"gemini"``.
    model : str
        Model name (``"smollm2"`` or a ``.gguf`` path for ``local``).
    base_url : str or None
        Server URL for API providers (e.g. ``http://127.0.0.1:8000/v1``).
    options : mapping or None
        Keyword options of the provider's constructor (e.g. ``{"top_logprobs": 5}``), plus
        ``"sampling": {"n": 10, "temperature": 1.0, "seed": 0}`` to estimate the distribution from
        samples instead of logprobs (for servers without logprobs).
    settings : ProviderSettings or None
        The API keys and the models folder, resolved at an edge (``Settings.provider_settings()``): passed
        as ``api_keys`` / ``models_dir`` to a provider whose constructor takes them. None: no key, the
        default folder.

    Raises
    ------
    ValueError
        Unknown kind or option, or an option the provider rejects.
    """
    opts = dict(options or {})
    reserved = sorted(set(opts) & set(SETTINGS_KEYWORDS))
    if reserved:
        raise ValueError(f"{', '.join(reserved)} come from the settings, not from a member's options "
                         "(name a key variable with api_key_env)")
    sampling = opts.pop("sampling", None)
    cls = provider_class(kind)
    settings = settings if settings is not None else ProviderSettings()
    takes = inspect.signature(cls).parameters
    if "api_keys" in takes:
        opts["api_keys"] = settings.keys
    if "models_dir" in takes:
        opts["models_dir"] = settings.models_dir
    if getattr(cls, "takes_base_url", True):
        opts["base_url"] = base_url
    elif base_url:
        raise ValueError(f"the {kind} provider runs in-process and takes no base_url")
    provider: Any = _construct(cls, model, opts)
    if sampling is not None:
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
