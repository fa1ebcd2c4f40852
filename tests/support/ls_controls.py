"""Answering Label Studio 1.23.2's controls in the labelling view, as a person does, and reading what it shows.

One function per gesture (a star, a Pairwise side, a typed number, a taxonomy node, a choice) and one per
thing the view shows (stars lit, the selected side, the number, the taxonomy tags, a hidden control, an error
instead of the view). Selectors are those of Label Studio 1.23.2's frontend (antd ``Rate``, the NewTaxonomy
tree select, ``lsf-choices``); the Pairwise objects are the ``<Text>`` blocks Label Studio makes clickable.
"""

from __future__ import annotations

from typing import Any

VIEW = ".lsf-main-view__annotation"
STARS = "ul.ant-rate"
CHOICES = ".lsf-choices"
# The two objects a <Pairwise> compares: Label Studio gives both these classes and a click handler.
PAIRWISE_SIDES = f"{VIEW} div.cursor-pointer.transition-colors"
TAXONOMY = ".htx-taxonomy"
DROPDOWN_OPEN = ".ant-select-dropdown:not(.ant-select-dropdown-hidden)"


def open_task(page: Any, url: str, project: int, task_id: int) -> None:
    """Open a task in the Data Manager's labelling view and wait until its controls are drawn."""
    page.goto(f"{url}/projects/{project}/data?task={task_id}")
    page.locator(VIEW).or_(page.locator("text=/Error:/")).first.wait_for(timeout=60000)
    # The view is drawn before the task's annotations and predictions arrive: wait for those requests, then a
    # moment for the frontend to put them in the controls.
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(400)


def submit(page: Any) -> list[str]:
    """Press Submit; the warnings Label Studio shows instead of saving (empty when it saved)."""
    saved: list[int] = []

    def on_response(response: Any) -> None:
        if response.request.method == "POST" and "/annotations" in response.url:
            saved.append(response.status)

    page.on("response", on_response)
    try:
        page.click("button:has-text('Submit')")
        # Either the annotation is posted or a warning opens instead: wait for whichever comes (up to 10 s).
        for _ in range(100):
            if saved or page.locator(".ant-modal-content").count():
                break
            page.wait_for_timeout(100)
        page.wait_for_timeout(300)
    finally:
        page.remove_listener("response", on_response)
    warnings = page.locator(".ant-modal-content").all_inner_texts()
    for _ in warnings:
        page.click(".ant-modal-content button:has-text('OK')")
    return warnings


def click_star(page: Any, stars: int, *, control: int = 0) -> None:
    """Click the ``stars``-th star of the ``control``-th ``<Rating>`` on the page."""
    rating = page.locator(STARS).nth(control)
    rating.scroll_into_view_if_needed()
    rating.locator(f"li.ant-rate-star:nth-child({stars}) div[role=radio]").click()
    page.wait_for_timeout(300)


def stars_lit(page: Any, *, control: int = 0) -> int:
    return page.locator(STARS).nth(control).locator("li.ant-rate-star-full").count()


def rating_visible(page: Any, *, control: int = 0) -> bool:
    return page.locator(STARS).nth(control).is_visible()


def click_side(page: Any, side: str) -> None:
    """Click the left or right object of the ``<Pairwise>``."""
    page.locator(PAIRWISE_SIDES).nth(("left", "right").index(side)).click()
    page.wait_for_timeout(300)


def sides_selected(page: Any) -> list[str]:
    """The sides the view shows as chosen (an unchosen side has a transparent border)."""
    shown = []
    for index, side in enumerate(("left", "right")):
        box = page.locator(PAIRWISE_SIDES).nth(index)
        look = f"{box.get_attribute('style') or ''} {box.get_attribute('class') or ''}"
        if "transparent" not in look:
            shown.append(side)
    return shown


def type_number(page: Any, name: str, text: str, *, then_clear: bool = False) -> None:
    """Type into the ``<Number name=...>`` field (then erase it with Backspace when asked)."""
    field = page.locator(f"input[type=number][name='{name}']")
    field.click()
    page.keyboard.type(text)
    if then_clear:
        for _ in text:
            page.keyboard.press("Backspace")
    page.wait_for_timeout(300)


def number_shown(page: Any, name: str) -> str:
    return page.input_value(f"input[type=number][name='{name}']")


def pick_taxonomy(page: Any, path: list[str]) -> None:
    """Tick the node at ``path`` in the taxonomy dropdown, expanding its ancestors first."""
    if not page.locator(DROPDOWN_OPEN).count():
        page.click(f"{TAXONOMY} .ant-select-selector")
        page.wait_for_timeout(500)
    for parent in path[:-1]:
        node = page.locator(f".ant-select-tree-treenode:has(> [title='{parent}'])")
        if node.locator(".ant-select-tree-switcher_close").count():
            node.locator(".ant-select-tree-switcher").click()
            page.wait_for_timeout(300)
    page.locator(f".ant-select-tree-node-content-wrapper[title='{path[-1]}']").click()
    page.wait_for_timeout(300)


def close_taxonomy(page: Any) -> None:
    page.keyboard.press("Escape")
    page.mouse.click(700, 700)
    page.wait_for_timeout(300)


def taxonomy_tags(page: Any) -> list[str]:
    """The selected nodes the taxonomy field shows (their own names)."""
    return page.locator(f"{TAXONOMY} .ant-select-selection-item").all_inner_texts()


def pick_choice(page: Any, value: str, *, control: int | None = None) -> None:
    """Tick the choice ``value`` (in the ``control``-th ``<Choices>`` when values repeat across controls)."""
    scope = page.locator(CHOICES).nth(control) if control is not None else page
    scope.locator(f"label:has(input[name='{value}'])").click()
    page.wait_for_timeout(300)


def choice_checked(page: Any, value: str) -> bool:
    return page.is_checked(f"input[name='{value}']")


def choices_hidden(page: Any, control: int) -> bool:
    """Whether the ``control``-th ``<Choices>`` is hidden by its ``visibleWhen``."""
    return "lsf-choices_hidden" in (page.locator(CHOICES).nth(control).get_attribute("class") or "")


def view_errors(page: Any) -> list[str]:
    """The errors Label Studio shows in place of the labelling view (a result it cannot load)."""
    return page.locator("text=/Error:/").all_inner_texts()
