"""Driving Label Studio's labelling view for span tests: log in, open a task, mark a word, read highlights."""

from __future__ import annotations

from typing import Any

from backend.labelstudio.scoreview import SUSPECTS_TITLE
from tests.support.browser import login  # noqa: F401  (the pages log in through the form)
from tests.support.ls_controls import submit as controls_submit

#: Finds the nth occurrence of a word in the text object and returns its on-screen centre.
_FIND = """([word, nth]) => {
  const root = document.querySelector('.lsf-richtext__container');
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let node, seen = 0;
  while ((node = walker.nextNode())) {
    let i = -1;
    while ((i = node.data.indexOf(word, i + 1)) !== -1) {
      if (seen++ === nth) {
        const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + word.length);
        const rect = r.getBoundingClientRect();
        return [rect.left + rect.width / 2, rect.top + rect.height / 2];
      }
    }
  }
  return null;
}"""
_HIGHLIGHTS = """() => [...document.querySelectorAll('.lsf-richtext__container .htx-highlight')].map(
  h => [h.innerText, Number(h.dataset.start), Number(h.dataset.end)])"""


def open_task(page: Any, url: str, project: int, task_id: int) -> None:
    page.goto(f"{url}/projects/{project}/data?task={task_id}")
    page.wait_for_selector(".lsf-richtext__line", timeout=60000)
    page.wait_for_load_state("networkidle")  # the task's annotations arrive after the text is drawn
    page.wait_for_timeout(400)


def pick_word(page: Any, word: str, label: str, *, nth: int = 0) -> None:
    """Choose ``label`` and double-click the word, as an annotator marks an entity."""
    page.click(f".lsf-label__text:text-is('{label}')")
    where = page.evaluate(_FIND, [word, nth])
    assert where is not None, f"{word!r} is not in the text shown"
    before = page.locator(".htx-highlight").count()
    page.mouse.dblclick(*where)
    page.wait_for_function(f"document.querySelectorAll('.htx-highlight').length > {before}", timeout=10000)


def submit(page: Any) -> None:
    """Press Submit and wait until the annotation is posted (:func:`tests.support.ls_controls.submit`)."""
    warnings = controls_submit(page)
    assert not warnings, warnings


def highlights(page: Any) -> list[tuple[str, int, int]]:
    """Every highlighted region's text as the browser renders it, with the offsets the view holds."""
    return [(t, s, e) for t, s, e in page.evaluate(_HIGHLIGHTS)]


def suspects_tab(ls: Any, project: int) -> tuple[int, list[int]]:
    """The suspects tab's id and the task ids it lists, in its order (through the Data Manager API)."""
    http = ls.client._client_wrapper.httpx_client
    views = http.request("api/dm/views", method="GET", params={"project": project}).json()
    tabs = [v for v in views if v["data"].get("title") == SUSPECTS_TITLE]
    assert len(tabs) == 1, [v["data"].get("title") for v in views]
    listed = http.request("api/tasks", method="GET", params={"project": project, "view": tabs[0]["id"],
                                                              "page_size": 100}).json()
    return tabs[0]["id"], [t["id"] for t in listed["tasks"]]
