"""Headless Chromium for the browser tests: Debian's package, driven by Playwright, no browser download.

Playwright launches ``/usr/bin/chromium`` (``apt-get install -y chromium``; another path in
``LABEL_AUDIT_CHROMIUM``). Locally a missing Chromium skips the test; under CI it fails it. Screenshots
go to ``artifacts/`` at the repository root.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.ls_controls import open_task

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM = os.environ.get("LABEL_AUDIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> str:
    """The Chromium executable; skips the test without one (fails it under CI)."""
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return CHROMIUM
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"Chromium not found at {CHROMIUM}: CI must `apt-get install -y chromium`")
    pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")


@contextmanager
def headless_chromium() -> Iterator[Any]:
    """A Playwright browser on headless Chromium, closed on exit; ``artifacts/`` exists meanwhile."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def login(page: Any, url: str, email: str, password: str) -> None:
    """Log in through Label Studio's form, as a person does, and wait until the app has loaded."""
    page.goto(f"{url}/user/login/")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda u: "/user/login" not in u)
    page.wait_for_load_state("networkidle")


def settle(page: Any) -> None:
    """Wait until the page's requests are over and give the frontend a moment to draw their answers."""
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(800)


def screenshot_suspects_tab(ls: Any, project: int, name: str, *, then_task: int | None = None) -> None:
    """The lead's Data Manager of ``project`` on its suspects tab (``ARTIFACTS/name``); with ``then_task``, that
    task's labelling view too (``name`` with ``-task``)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from backend.labelstudio.scoreview import SUSPECTS_TITLE

    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 800})
        login(page, ls.url, ls.process.username, ls.process.password)
        page.goto(f"{ls.url}/projects/{project}/data")
        tab = page.get_by_text(SUSPECTS_TITLE)
        with suppress(PlaywrightTimeout):  # no suspects tab: the Data Manager is photographed as it is
            tab.first.wait_for(timeout=30_000)
        if tab.count():
            tab.first.click()
            settle(page)
        page.screenshot(path=str(ARTIFACTS / name))
        if then_task is not None:
            open_task(page, ls.url, project, then_task)
            page.screenshot(path=str(ARTIFACTS / name.replace(".png", "-task.png")), full_page=True)
