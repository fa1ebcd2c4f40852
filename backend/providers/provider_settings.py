"""What the providers take from a run's settings instead of the process environment.

An API key is named by variable (a provider's default ``OPENAI_API_KEY``..., a member's ``api_key_env``) but
resolved once, at an edge, by :class:`backend.config.settings.Settings`, which hands the values down as
:meth:`~backend.config.settings.Settings.provider_settings`; so is the folder of the named local judges.
A provider built without them gets no key (a cloud endpoint is then refused) and the default folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from backend.common import defaults

__all__ = ["ProviderSettings"]


@dataclass(frozen=True)
class ProviderSettings:
    """API keys by variable name (never shown: ``repr=False``) and the named judges' models folder."""

    keys: Mapping[str, str] = field(default_factory=dict, repr=False)
    models_dir: Path = Path(defaults.MODELS_DIR)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", MappingProxyType(dict(self.keys)))
        object.__setattr__(self, "models_dir", Path(self.models_dir).expanduser())

    def key(self, name: str) -> str | None:
        """The value of the key variable ``name``, or None when it is not set."""
        return self.keys.get(name) or None
