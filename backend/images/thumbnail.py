"""A small PNG of an image for the report's grid of confirmed errors.

The report is one self-contained HTML file (mailed, attached to a ticket, opened offline), so a picture
travels inside it as a data URL; at most 160 px on its longest side keeps a grid of a hundred errors
to a few megabytes. Made from the pixels only (:func:`backend.images.review_copy.neutral_copy`), so
no source metadata travels with the report either.
"""

from __future__ import annotations

import io

from backend.providers.image_part import ImagePart
from backend.images.review_copy import neutral_copy
from PIL import Image

THUMBNAIL_PX = 160


def thumbnail_png(part: ImagePart, *, max_px: int = THUMBNAIL_PX) -> bytes:
    """A PNG of ``part`` at most ``max_px`` wide and high (CopyRefused when it cannot be decoded)."""
    if max_px < 1:
        raise ValueError("max_px must be positive")
    clean = neutral_copy(part)
    with Image.open(io.BytesIO(clean.data)) as image:
        image.load()
        image.thumbnail((max_px, max_px))
        buf = io.BytesIO()
        image.save(buf, format="PNG")
    return buf.getvalue()


__all__ = ["THUMBNAIL_PX", "thumbnail_png"]
