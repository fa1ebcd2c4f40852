"""The copy of an image an expert is shown: the pixels only, under a random name.

Why a copy: the review instance holds no source data and its experts have no source token, so a link to
the source image would either not load or leak the source's address. And why re-encoded rather than
copied byte for byte: an image file carries more than pixels — EXIF (camera, GPS, comments), PNG text
chunks, ICC profile descriptions, XMP, the file name — and any of them can hold the original label, a
score or the source task id (an upload named ``cat_task17.png``, a tagging tool's comment). The copy is
decoded with Pillow and written as a fresh PNG from the pixel values alone: lossless (the expert sees
exactly the source's pixels, a JPEG is not compressed twice), no chunk but the image's own, named by
random hex. The EXIF orientation is applied first, so the expert sees the image the way a browser shows
the source. An animated image keeps its first frame.
"""

from __future__ import annotations

import io
import secrets
import warnings
from dataclasses import dataclass, field

from backend.providers.image_part import ImagePart
from PIL import Image, ImageOps

COPY_MIME = "image/png"
# Modes a PNG stores as they are; every other mode is converted (palette -> RGB(A), CMYK/YCbCr -> RGB).
PNG_MODES = frozenset({"1", "L", "LA", "I", "I;16", "RGB", "RGBA"})


class CopyRefused(ValueError):
    """The image cannot be decoded into a review copy (the item is reported, the push goes on)."""


@dataclass(frozen=True)
class ReviewCopy:
    """A neutral PNG of one image: ``name`` is random hex, ``data`` holds no metadata chunk."""

    name: str
    data: bytes = field(repr=False)
    width: int
    height: int
    mime: str = COPY_MIME


def neutral_name() -> str:
    """``<32 hex>.png``: says nothing about the item, its label or where it came from."""
    return f"{secrets.token_hex(16)}.png"


def _pixels_only(image):  # PIL.Image.Image -> PIL.Image.Image
    """A new image holding only ``image``'s pixel values (no ``info``, no palette metadata, no ICC)."""
    if image.mode not in PNG_MODES:
        transparent = image.mode in ("P", "PA", "RGBa", "La") and (image.mode != "P" or "transparency" in image.info)
        image = image.convert("RGBA" if transparent or image.mode.endswith("A") else "RGB")
    return Image.frombytes(image.mode, image.size, image.tobytes())


def neutral_copy(part: ImagePart) -> ReviewCopy:
    """The review copy of ``part`` (CopyRefused when Pillow cannot decode it, or it is too large to)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)  # a bomb is refused, not half-read
            with Image.open(io.BytesIO(part.data)) as opened:
                opened.seek(0)
                opened.load()
                upright = ImageOps.exif_transpose(opened)
                clean = _pixels_only(upright)
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise CopyRefused(f"the image could not be decoded for the review copy ({type(exc).__name__})") from None
    buf = io.BytesIO()
    clean.save(buf, format="PNG")  # no pnginfo, exif or icc_profile: only IHDR/PLTE/IDAT/IEND are written
    return ReviewCopy(name=neutral_name(), data=buf.getvalue(), width=clean.width, height=clean.height)


__all__ = ["COPY_MIME", "CopyRefused", "ReviewCopy", "neutral_copy", "neutral_name"]
