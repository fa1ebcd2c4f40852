"""Open an HTML report in headless Chromium (Debian's package, driven by Playwright) and screenshot it.

No browser download: Playwright launches ``/usr/bin/chromium`` (``apt-get install -y chromium``).
Locally a missing Chromium skips the test; under CI it fails it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"
CHROMIUM = os.environ.get("LABEL_AUDIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> str:
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return CHROMIUM
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"Chromium not found at {CHROMIUM}: CI must `apt-get install -y chromium`")
    pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")


def screenshot_html(page_path: Path, name: str, *, figures: int) -> Path:
    """Load the file, check its figures decoded and its tables exist, save a full-page screenshot."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / name
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(page_path.resolve().as_uri())
            assert "Label audit report" in page.inner_text("h1")
            sizes = page.eval_on_selector_all("img[data-figure]", "els => els.map(e => [e.naturalWidth, e.complete])")
            assert len(sizes) == figures and all(w > 100 and done for w, done in sizes)  # decoded, not broken
            assert page.locator("section#errors table").count() == 1
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
    return shot
