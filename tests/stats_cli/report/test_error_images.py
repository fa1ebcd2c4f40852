"""The report's grid of confirmed errors: only for image projects, never a broken picture, HTML only.

Built from test-made audit data (planted experts' answers; thumbnails made with Pillow): what is checked is
which items the grid holds and how each format says it. The real fetch from Label Studio is checked end to
end in ``tests/backend/review/test_image_review.py``.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

from PIL import Image

from backend.providers.image_part import ImagePart
from backend.images.thumbnail import thumbnail_png
from stats_cli.sources.error_pictures import ErrorImage, ErrorImages, confirmed_errors
from stats_cli.report.build import build_report
from stats_cli.report.model import Status
from stats_cli.report.render import render
from tests.stats_cli.report.builders import SPEC, planted_audit

IMAGE_SPEC = replace(SPEC, image_fields=("grounding",))


def _png(colour: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (300, 200), colour).save(buf, "PNG")
    return thumbnail_png(ImagePart("grounding", "image/png", buf.getvalue()))


def _image_audit(**images):
    data, _truth = planted_audit()
    return replace(data, spec=IMAGE_SPEC, **images)


def test_a_text_project_has_no_grid():
    data, _ = planted_audit()
    report = build_report(data)
    section = report.section("error_images")
    assert section.status is Status.NOT_APPLICABLE and "no image input" in section.reason
    html = render(report, fmt="html")
    assert "class='grid'" not in html and "<figure" not in html


def test_without_fetched_images_the_grid_is_pending_and_markdown_points_at_html():
    data = _image_audit()
    section = build_report(data).section("error_images")
    assert section.status is Status.PENDING and section.sizes == {"confirmed errors": 9}
    md = render(build_report(data), fmt="md")
    part = md.split("## Confirmed errors, pictured", 1)[1].split("\n## ", 1)[0]
    assert "PENDING" in part and "the thumbnail grid of the confirmed errors is in the HTML report" in part
    failed = _image_audit(error_images=ErrorImages("grounding", unavailable="ValueError: no token"))
    section = build_report(failed).section("error_images")
    assert section.status is Status.PENDING and "could not be fetched" in section.reason
    assert "<img" not in render(build_report(failed), fmt="html").split("id='error_images'", 1)[1].split("</section>")[0]


def test_the_grid_holds_every_confirmed_error_and_says_why_a_picture_is_missing():
    base = _image_audit()
    errors = [str(it.id) for it, _gold in confirmed_errors(base)]
    assert len(errors) == 9
    fetched = {t: ErrorImage(t, png=_png((200, 30, 30))) for t in errors[:6]}
    fetched.update({t: ErrorImage(t, reason="image_fetch: answered HTTP 404") for t in errors[6:]})
    data = replace(base, error_images=ErrorImages("grounding", fetched))
    report = build_report(data)
    section = report.section("error_images")
    assert section.status is Status.OK and section.sizes == {"confirmed errors": 9, "pictured": 6}
    html = render(report, fmt="html")
    grid = html.split("<section id='error_images'>", 1)[1].split("</section>", 1)[0]
    figures = re.findall(r"<figure data-item='([^']+)'>(.*?)</figure>", grid)
    assert [item for item, _ in figures] == errors
    for item, body in figures:
        if item in errors[:6]:
            assert body.count("<img") == 1 and "src='data:image/png;base64," in body
        else:
            assert "<img" not in body and "image not available: image_fetch: answered HTTP 404" in body
        original = next(it.original for it in data.items if str(it.id) == item)
        assert f"task {item}: {original} → " in body
    doc = json.loads(render(report, fmt="json"))
    gallery = next(s for s in doc["sections"] if s["key"] == "error_images")["gallery"]
    assert [g["available"] for g in gallery] == [True] * 6 + [False] * 3
    assert "base64" not in json.dumps(gallery)  # JSON says what is pictured, the pictures live in HTML
    md = render(report, fmt="md")
    assert "The thumbnail grid of these items is in the HTML report" in md
    assert "thumbnail grid of these items is in the HTML report" in render(report, fmt="table")


def test_thumbnails_are_at_most_160_px():
    with Image.open(io.BytesIO(_png((0, 0, 0)))) as thumb:
        assert thumb.size == (160, 107)
