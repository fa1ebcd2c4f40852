"""Image tokens before a run, as each provider bills them where it documents how; else a stated "cannot".

Written by hand because no installed library computes them (OpenAI's and Google's SDKs only count after
the fact, through the API), and the documented rules are a few lines each, read from the pixel size the
fetcher recorded (:attr:`backend.providers.image_part.ImagePart.width`/``height``):

- **OpenAI, tile-billed models** (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1/o3, computer-use-preview; OpenAI's
  "Images and vision" guide, *Calculating costs*): ``detail: low`` costs the base tokens; ``high`` scales
  the image to fit 2048x2048, then so its shortest side is at most 768 px, and adds the tile tokens per
  512x512 tile covering it (gpt-4o: 85 + 170 per tile, so 1024x1024 costs 765). The provider sends no
  ``detail``, which is ``auto`` (the model chooses): counted as ``high``, the most it can bill.
  **gpt-4o-mini** uses the same tiles at 2833 + 5667 per tile, **not** gpt-4o's numbers.
- **OpenAI, patch-billed models** (gpt-4.1-mini/nano, gpt-5-mini/nano, o4-mini): 32x32 patches covering
  the image, scaled down to at most 1536 patches, times the model's multiplier (1.62, 2.46, 1.72).
- **Gemini 1.5/2.x** (Google's "Understand and count tokens" guide): an image with both sides <= 384 px
  is 258 tokens; a larger one is cropped and scaled into 768x768 tiles, 258 tokens each (read here as
  ``ceil(w/768) * ceil(h/768)`` tiles; Google does not publish the crop rule, ``countTokens`` is exact).
  Gemini 3 bills by ``media_resolution`` instead: not counted.
- Any other server (vLLM, llama.cpp, Ollama, a proxy) documents no billing: not counted, and the
  dry run says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from backend.providers.image_part import ImagePart

#: OpenAI tile-billed models: (model prefix, base tokens, tokens per 512 px tile); longest prefix wins.
OPENAI_TILES: tuple[tuple[str, int, int], ...] = (
    ("gpt-4o-mini", 2833, 5667),
    ("gpt-4o", 85, 170), ("chatgpt-4o", 85, 170), ("gpt-4.1", 85, 170), ("gpt-4.5", 85, 170),
    ("gpt-4-turbo", 85, 170), ("gpt-5", 70, 140), ("o1", 75, 150), ("o3", 75, 150),
    ("computer-use-preview", 65, 129),
)
#: OpenAI patch-billed models: (model prefix, tokens per 32 px patch).
OPENAI_PATCHES: tuple[tuple[str, float], ...] = (
    ("gpt-4.1-mini", 1.62), ("gpt-4.1-nano", 2.46), ("gpt-5-mini", 1.62), ("gpt-5-nano", 2.46),
    ("o4-mini", 1.72),
)
MAX_PATCHES = 1536
GEMINI_SMALL_SIDE, GEMINI_TILE_SIDE, GEMINI_TILE_TOKENS = 384, 768, 258


@dataclass(frozen=True)
class ImageTokens:
    """Image tokens of one call (``tokens`` None: not counted) and the rule used, or why not."""

    tokens: int | None
    basis: str


def openai_tile_tokens(width: int, height: int, *, detail: str = "high", base: int = 85, tile: int = 170) -> int:
    """Tokens of one image on a tile-billed OpenAI model (``detail`` ``low``, ``high`` or ``auto`` = high)."""
    _check_size(width, height)
    if detail not in ("low", "high", "auto"):
        raise ValueError(f"detail is low, high or auto, got {detail!r}")
    if detail == "low":
        return base
    w, h = Fraction(width), Fraction(height)
    if max(w, h) > 2048:  # fit within 2048 x 2048
        scale = Fraction(2048) / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > 768:  # shortest side 768
        scale = Fraction(768) / min(w, h)
        w, h = w * scale, h * scale
    return base + tile * math.ceil(w / 512) * math.ceil(h / 512)


def openai_patch_tokens(width: int, height: int, *, multiplier: float) -> int:
    """Tokens of one image on a patch-billed OpenAI model: 32 px patches (at most 1536) x ``multiplier``."""
    _check_size(width, height)
    w, h = Fraction(width), Fraction(height)
    if math.ceil(w / 32) * math.ceil(h / 32) > MAX_PATCHES:
        shrink = Fraction(math.sqrt(32 * 32 * MAX_PATCHES / (width * height)))
        # shrink further so a whole number of patches spans the binding side (OpenAI's documented step)
        shrink *= min(Fraction(math.floor(w * shrink / 32)) / (w * shrink / 32),
                      Fraction(math.floor(h * shrink / 32)) / (h * shrink / 32))
        w, h = w * shrink, h * shrink
    patches = min(math.ceil(w / 32) * math.ceil(h / 32), MAX_PATCHES)
    return math.ceil(patches * multiplier)


def gemini_image_tokens(width: int, height: int) -> int:
    """Tokens of one image on Gemini 1.5/2.x: 258 when both sides <= 384 px, else 258 per 768 px tile."""
    _check_size(width, height)
    if width <= GEMINI_SMALL_SIDE and height <= GEMINI_SMALL_SIDE:
        return GEMINI_TILE_TOKENS
    return GEMINI_TILE_TOKENS * math.ceil(width / GEMINI_TILE_SIDE) * math.ceil(height / GEMINI_TILE_SIDE)


def _check_size(width: int, height: int) -> None:
    if width < 1 or height < 1:
        raise ValueError(f"an image has a positive size, got {width}x{height}")


def _prefixed(model: str, table: Sequence[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    hits = [row for row in table if model == row[0] or model.startswith(row[0] + "-")]
    return max(hits, key=lambda row: len(row[0])) if hits else None


def _rule(provider: Any) -> tuple[Any, str] | str:
    """``(tokens(width, height), basis)`` for ``provider``'s images, or the reason they cannot be counted."""
    # heavy: backend.providers.openai_compat imports the openai SDK (~2 s), not loaded by label-audit --help
    from backend.providers.openai_compat import is_official

    provider = getattr(provider, "inner", None) or provider  # sampling: the wrapped provider sends them
    name, model = getattr(provider, "name", ""), str(getattr(provider, "model", "")).lower()
    base_url = getattr(provider, "base_url", None)
    if name == "openai":
        if not is_official(base_url, "api.openai.com"):
            return "this server documents no image billing"
        patch = _prefixed(model, OPENAI_PATCHES)
        tile = _prefixed(model, OPENAI_TILES)
        if patch is not None:
            return (lambda w, h: openai_patch_tokens(w, h, multiplier=patch[1]),
                    f"OpenAI 32px patches x {patch[1]} ({patch[0]})")
        if tile is not None:
            return (lambda w, h: openai_tile_tokens(w, h, detail="auto", base=tile[1], tile=tile[2]),
                    f"OpenAI tiles, detail auto counted as high: {tile[1]} + {tile[2]}/512px tile ({tile[0]})")
        return f"OpenAI documents no image billing for {model}"
    if name == "gemini":
        if not is_official(base_url, "generativelanguage.googleapis.com"):
            return "this endpoint documents no image billing"
        if model.startswith(("gemini-1.5", "gemini-2")):
            return gemini_image_tokens, "Gemini: 258 per image <= 384px, else 258 per 768px tile"
        return f"{model} bills images by media_resolution, not counted here"
    return "this judge is sent no image"


def image_tokens(provider: Any, images: Sequence[ImagePart]) -> ImageTokens:
    """The image tokens one call of ``provider`` carrying ``images`` is billed, or why they are not counted."""
    if not images:
        return ImageTokens(0, "no image")
    rule = _rule(provider)
    if isinstance(rule, str):
        return ImageTokens(None, rule)
    if any(i.width < 1 or i.height < 1 for i in images):
        return ImageTokens(None, "an image's pixel size is unknown")
    count, basis = rule
    return ImageTokens(sum(count(i.width, i.height) for i in images), basis)


__all__ = ["ImageTokens", "gemini_image_tokens", "image_tokens", "openai_patch_tokens", "openai_tile_tokens"]
