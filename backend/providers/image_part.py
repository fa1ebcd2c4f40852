"""One image an item shows its judges: the bytes, their MIME type and their content hash.

Why a type of its own: the engine, the providers, the cache key, the input hash and the review copy all
need the same three facts about an image, and the bytes must never travel as a URL that only works with
the source instance's credentials. The prompt text names the image by its position (``[attached image 1]``,
:func:`placeholder`); the provider sends the bytes beside the text (OpenAI: a base64 data URL content
part; Gemini: inline bytes), before the text, so the prompt still ends with the answer cue.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field

#: MIME types a judge may be sent (what OpenAI and Gemini both accept).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


def placeholder(position: int) -> str:
    """The text standing for the ``position``-th (1-based) image of an item inside the rendered prompt."""
    return f"[attached image {position}]"


@dataclass(frozen=True)
class ImagePart:
    """One fetched image of one item.

    Parameters
    ----------
    variable : str
        The template variable it fills (a key of ``TaskSpec.fields``).
    mime : str
        One of :data:`IMAGE_TYPES`, as checked from the bytes (never trusted from a header alone).
    data : bytes
        The image as fetched.
    width, height : int
        Pixel size (0 when unknown): dry-run counts image tokens from it.
    """

    variable: str
    mime: str
    data: bytes = field(repr=False)
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        if self.mime not in IMAGE_TYPES:
            raise ValueError(f"image type {self.mime!r} is not one of {', '.join(IMAGE_TYPES)}")
        if not self.data:
            raise ValueError("an image part holds at least one byte")

    @property
    def sha256(self) -> str:
        """Content hash: enters the call-cache key and the input hash (an edited image is re-scored)."""
        return hashlib.sha256(self.data).hexdigest()

    def data_url(self) -> str:
        """``data:<mime>;base64,...``: how OpenAI-protocol servers take an image inline."""
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


__all__ = ["IMAGE_TYPES", "ImagePart", "placeholder"]
