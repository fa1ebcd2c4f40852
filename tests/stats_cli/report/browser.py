"""Open an HTML report in headless Chromium (:mod:`tests.support.browser`) and screenshot it."""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import ARTIFACTS, headless_chromium


def screenshot_html(page_path: Path, name: str, *, figures: int) -> Path:
    """Load the file, check its figures decoded and its tables exist, save a full-page screenshot."""
    shot = ARTIFACTS / name
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(page_path.resolve().as_uri())
        assert "Label audit report" in page.inner_text("h1")
        sizes = page.eval_on_selector_all("img[data-figure]", "els => els.map(e => [e.naturalWidth, e.complete])")
        assert len(sizes) == figures and all(w > 100 and done for w, done in sizes)  # decoded, not broken
        assert page.locator("section#errors table").count() == 1
        page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    return shot
