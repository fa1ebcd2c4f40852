"""Which judges see: the engine sends images only where ``accepts_images`` is true, so each kind says so.

The embedded GGUF model is text-only (no multimodal projector is loaded) and the confident-learning
member's classifier reads text inputs only: both must stay out of image questions (``no_vision``).
"""

from __future__ import annotations

from backend.confident.provider import ConfidentProvider
from backend.providers.base import accepts_images
from backend.providers.gemini import GeminiProvider
from backend.providers.local_gguf import LocalGGUFProvider
from backend.providers.registry import provider_class


def test_each_registered_kind_states_whether_it_sees() -> None:
    for kind in ("local", "openai", "gemini", "cleanlab"):
        assert "accepts_images" in vars(provider_class(kind)) or kind == "openai", kind  # openai: per instance
    assert (accepts_images(LocalGGUFProvider), accepts_images(ConfidentProvider)) == (False, False)
    assert accepts_images(GeminiProvider) is True
