"""Log into Label Studio in headless Chromium (:mod:`tests.support.browser`) and screenshot a page.

Each login gets its own browser context, so the admin's and an expert's sessions never mix. The text a
person would read is returned with the screenshot, so tests can check what is (and is not) on screen.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import ARTIFACTS, headless_chromium


def screenshot_as(url: str, email: str, password: str, path: str, name: str, *, wait_for: str,
                  click: str | None = None) -> tuple[Path, str]:
    """Log in as ``email``, open ``url + path``, wait for ``wait_for`` (a selector), optionally click
    ``click`` (a selector) and wait for it to settle; save ``artifacts/<name>``: (file, visible text)."""
    shot = ARTIFACTS / name
    with headless_chromium() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{url}/user/login/")
        page.fill("input[name=email]", email)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda u: "/user/login" not in u)
        page.goto(f"{url}{path}")
        page.wait_for_selector(wait_for)
        if click:
            page.click(click)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1500)  # the Data Manager and the editor render after their last request
        text = page.inner_text("body")
        page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    return shot, text
