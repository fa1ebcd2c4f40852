"""The review copy and the report thumbnail: pixels kept exactly, every metadata chunk and the name dropped."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image, ImageCms, PngImagePlugin

from backend.providers.image_part import ImagePart
from backend.images.review_copy import CopyRefused, neutral_copy
from backend.images.thumbnail import thumbnail_png
from backend.labelstudio.uploads import served_path

MARKER = "LEAKMARKER-cat-task-4711"


def _pattern(mode: str = "RGB", size: tuple[int, int] = (64, 48)) -> Image.Image:
    image = Image.new("RGB", size)
    image.putdata([((x * 7) % 256, (y * 11) % 256, (x * y) % 256) for y in range(size[1]) for x in range(size[0])])
    return image.convert(mode)


def _exif() -> Image.Exif:
    exif = Image.Exif()
    exif[0x010E] = MARKER  # ImageDescription
    exif[0x013B] = MARKER  # Artist
    return exif


def _png_with_metadata() -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", MARKER)
    info.add_itxt("label", MARKER, zip=True)
    buf = io.BytesIO()
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    _pattern().save(buf, "PNG", pnginfo=info, exif=_exif(), icc_profile=icc)
    return buf.getvalue()


def _jpeg_with_metadata() -> bytes:
    buf = io.BytesIO()
    _pattern().save(buf, "JPEG", quality=90, exif=_exif(), comment=MARKER.encode())
    return buf.getvalue()


def _pixels(data: bytes, mode: str = "RGB") -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        return image.convert(mode).tobytes()


def _png_chunks(data: bytes) -> list[bytes]:
    """The chunk types of a PNG file, in order (length, type, data, CRC after the 8-byte signature)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, types = 8, []
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        types.append(data[pos + 4:pos + 8])
        pos += 12 + length
    return types


@pytest.mark.parametrize("mime,make", [("image/png", _png_with_metadata), ("image/jpeg", _jpeg_with_metadata)])
def test_copy_keeps_the_pixels_and_drops_every_metadata_chunk(mime, make):
    data = make()
    assert MARKER.encode() in data  # the source carries the marker (tEXt, EXIF, JPEG comment)
    with Image.open(io.BytesIO(data)) as source:
        assert source.getexif().get(0x010E) == MARKER
    copy = neutral_copy(ImagePart("image", mime, data))
    assert MARKER.encode() not in copy.data and b"sRGB" not in copy.data
    with Image.open(io.BytesIO(copy.data)) as image:
        assert image.format == "PNG" and not image.info and not image.getexif()
        assert image.text == {}
    assert set(_png_chunks(copy.data)) <= {b"IHDR", b"IDAT", b"IEND"}
    assert _pixels(copy.data) == _pixels(data)  # lossless: a JPEG source is not compressed twice
    assert (copy.width, copy.height) == (64, 48)


def test_copy_names_are_random_hex_and_say_nothing_of_the_item():
    part = ImagePart("image", "image/png", _png_with_metadata())
    names = {neutral_copy(part).name for _ in range(5)}
    assert len(names) == 5
    assert all(re.fullmatch(r"[0-9a-f]{32}\.png", n) for n in names)


def test_copy_applies_the_exif_orientation_then_drops_it():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    buf = io.BytesIO()
    _pattern(size=(40, 20)).save(buf, "PNG", exif=exif)
    copy = neutral_copy(ImagePart("image", "image/png", buf.getvalue()))
    assert (copy.width, copy.height) == (20, 40)
    with Image.open(io.BytesIO(copy.data)) as image:
        assert not image.getexif()


def test_palette_and_transparency_survive_as_rgba():
    image = _pattern(size=(16, 16)).convert("P", palette=Image.Palette.ADAPTIVE, colors=8)
    buf = io.BytesIO()
    image.save(buf, "PNG", transparency=0)
    copy = neutral_copy(ImagePart("image", "image/png", buf.getvalue()))
    assert _pixels(copy.data, "RGBA") == _pixels(buf.getvalue(), "RGBA")


def test_undecodable_bytes_are_refused_with_a_reason():
    with pytest.raises(CopyRefused, match="could not be decoded"):
        neutral_copy(ImagePart("image", "image/png", b"\x89PNG\r\n\x1a\n not really"))


def test_thumbnail_is_at_most_160_px_and_clean():
    buf = io.BytesIO()
    _pattern(size=(640, 200)).save(buf, "PNG", pnginfo=PngImagePlugin.PngInfo())
    data = thumbnail_png(ImagePart("image", "image/png", _png_with_metadata()))
    big = thumbnail_png(ImagePart("image", "image/png", buf.getvalue()))
    with Image.open(io.BytesIO(big)) as image:
        assert image.size == (160, 50)
    assert MARKER.encode() not in data


def test_served_path_of_a_stored_upload():
    assert served_path("upload/3/ab12cd34-x.png", base_url="http://127.0.0.1:8080") == "/data/upload/3/ab12cd34-x.png"
    assert served_path("upload/3/a.png", base_url="https://ls.example.org/studio/") == "/studio/data/upload/3/a.png"
    assert served_path("http://127.0.0.1:8080/data/upload/3/a.png", base_url="http://localhost:8080") == \
        "/data/upload/3/a.png"
    assert served_path("https://cdn.example.org/a.png", base_url="http://127.0.0.1:8080") == "https://cdn.example.org/a.png"
