"""The result shape of a ``<Ranker>`` on Label Studio 1.23.2, from a person's drags in headless Chromium.

As ``test_control_shapes.py`` measures the other controls (docs/controls.md): the gallery's *LLM Ranker* template
(``generative-ai/llm-ranker``, two buckets) and a plain ``<List>`` + ``<Ranker>`` without buckets are answered by
mouse drags in the labelling view, submitted, and the annotations read back through the API; then the ranker
family's prediction (:meth:`backend.families.ranker.RankerFamily.write_result`) is bulk-imported and must show
in the view in its order. Screenshots go to ``artifacts/ranker-*.png``.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import show_scores
from tests.support import ls_controls as ui
from tests.support.browser import ARTIFACTS, headless_chromium, login
from tests.support.ls_templates import template_config

pytestmark = pytest.mark.labelstudio

RANKER = "generative-ai/llm-ranker"  # <List name="answers" value="$items"/> + <Ranker name="rank"> with 2 buckets
PLAIN = """<View><Text name="prompt" value="$prompt"/>
  <List name="answers" value="$items" title="Responses"/><Ranker name="rank" toName="answers"/></View>"""
ITEMS = [{"id": f"r{k}", "title": f"Model {k}", "body": body} for k, body in enumerate(
    ("Seven is prime.", "Two is the only even prime.", "Nine is prime.", "Ten is prime."))]
DATA = {"task": "Rank the answers.", "prompt": "Name a prime number.", "items": ITEMS}
ITEM = ".htx-ranker-item"
COLUMN = ".htx-ranker-column"
MV = "label-audit-ranker0001"


def shape(result: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: r[k] for k in ("from_name", "to_name", "type", "value")} for r in result]


def saved(ls: Any, task_id: int) -> list[list[dict[str, Any]]]:
    return [a.result for a in ls.client.annotations.list(id=task_id)]


def drag(page: Any, item: str, target: Any) -> None:
    """Press the mouse on the response whose text holds ``item``, move in steps (the drag library waits for a
    few pixels of movement before it lifts the card) and release it over ``target``'s centre."""
    card = page.locator(ITEM, has_text=item).first
    card.scroll_into_view_if_needed()
    box, goal = card.bounding_box(), target.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 8, steps=4)
    page.wait_for_timeout(250)
    page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=25)
    page.wait_for_timeout(400)
    page.mouse.up()
    page.wait_for_timeout(600)


def column(page: Any, title: str) -> Any:
    return page.locator(COLUMN, has_text=title).first


@pytest.fixture(scope="module")
def page(label_studio) -> Iterator[Any]:
    with headless_chromium() as browser:
        tab = browser.new_page(viewport={"width": 1400, "height": 1400})
        login(tab, label_studio.url, label_studio.process.username, label_studio.process.password)
        yield tab


def answer(ls: Any, page: Any, project: int, task_id: int, gesture, name: str) -> list[str]:
    ui.open_task(page, ls.url, project, task_id)
    gesture(page)
    page.screenshot(path=str(ARTIFACTS / f"ranker-{name}.png"), full_page=True)
    return ui.submit(page)


def test_the_gallery_ranker_saves_each_bucket_in_order_and_the_rest_under_underscore(label_studio, page):
    config = template_config(RANKER)
    project, ids = label_studio.create_project(config, [DATA] * 2)

    def sort(p):  # Nine first, then Seven, into the first bucket; Ten into the second; Two stays in the list
        drag(p, "Nine is prime.", column(p, "Relevant Results"))
        drag(p, "Seven is prime.", column(p, "Relevant Results"))
        drag(p, "Ten is prime.", column(p, "Biased Results"))

    assert answer(label_studio, page, project, ids[0], sort, "buckets") == []
    assert answer(label_studio, page, project, ids[1], lambda p: None, "buckets-untouched") == []
    first, untouched = saved(label_studio, ids[0]), saved(label_studio, ids[1])
    (result,) = first
    region = lambda columns: {"from_name": "rank", "to_name": "answers", "type": "ranker",  # noqa: E731
                              "value": {"ranker": columns}}
    # to_name is the <List>; every column is saved, the list's own (what no bucket holds) under "_"
    assert shape(result) == [region({"_": ["r1"], "relevant_results": ["r2", "r0"], "biased_results": ["r3"]})]
    # submitted untouched: everything under "_", the buckets empty (nothing placed: no ranking to audit)
    assert [shape(r) for r in untouched] == [[region({"_": ["r0", "r1", "r2", "r3"], "relevant_results": [],
                                                       "biased_results": []})]]
    spec = spec_from_label_config(config)
    value = spec.task_family.read_result(spec, result)
    assert value == '{"relevant_results":["r2","r0"],"biased_results":["r3"],"_":["r1"]}'
    assert shape(spec.task_family.write_result(spec, value)) == shape(result)


def test_a_ranker_without_buckets_saves_the_new_order_under_one_key(label_studio, page):
    project, ids = label_studio.create_project(PLAIN, [{"prompt": "Name a prime number.", "items": ITEMS}] * 2)

    def last_first(p):
        drag(p, "Ten is prime.", p.locator(ITEM, has_text="Seven is prime.").first)

    answer(label_studio, page, project, ids[0], last_first, "plain")
    answer(label_studio, page, project, ids[1], lambda p: None, "plain-untouched")
    moved, untouched = saved(label_studio, ids[0]), saved(label_studio, ids[1])
    region = lambda order: [[{"from_name": "rank", "to_name": "answers", "type": "ranker",  # noqa: E731
                              "value": {"ranker": {"rank": order}}}]]
    # without buckets the one column is keyed by the <Ranker>'s own name, in the order shown
    assert [shape(r) for r in moved] == region(["r3", "r0", "r1", "r2"])
    # submitted untouched: the data order itself (indistinguishable from a ranking that keeps it)
    assert [shape(r) for r in untouched] == region(["r0", "r1", "r2", "r3"])


def test_the_familys_prediction_is_kept_by_the_bulk_import_and_shown_in_its_order(label_studio, page):
    config = template_config(RANKER)
    project, ids = label_studio.create_project(config, [DATA])
    spec = spec_from_label_config(config)
    value = '{"relevant_results":["r1","r0"],"biased_results":["r3"],"_":["r2"]}'
    done = label_studio.client.projects.import_predictions(id=project, request=[
        {"task": ids[0], "result": spec.task_family.write_result(spec, value), "score": 0.5, "model_version": MV}])
    show_scores(label_studio.client, project, MV)
    assert int(done.created) == 1
    ui.open_task(page, label_studio.url, project, ids[0])
    page.screenshot(path=str(ARTIFACTS / "ranker-predicted.png"), full_page=True)
    relevant = column(page, "Relevant Results").locator(ITEM).all_inner_texts()
    assert [t.split("\n")[0] for t in relevant] == ["Model 1", "Model 0"]
    assert ui.submit(page) == []  # submitted unchanged, the annotation reads back as the prediction
    (result,) = saved(label_studio, ids[0])
    assert spec.task_family.read_result(spec, result) == value


def test_each_card_shows_its_id_and_number_ids_come_in_number_order_whatever_the_data_order(label_studio, page):
    """What an expert sees of a list (issue 41): every card shows its ``id`` as its last line; ids that read as
    numbers are drawn in number order (the cards follow the JavaScript keys of an object of ids), other ids in
    data order, so the blind copy's shuffle (``RankerFamily.blind_data``) reaches the screen only for the latter."""
    shuffled = [ITEMS[k] for k in (2, 0, 3, 1)]
    numbered = [{**ITEMS[k], "id": n} for k, n in ((0, "3"), (1, "1"), (2, "2"))]
    project, ids = label_studio.create_project(PLAIN, [{"prompt": "p", "items": shuffled},
                                                       {"prompt": "p", "items": numbered}])
    shown = []
    for task_id, name in zip(ids, ("shuffled", "numbered")):
        ui.open_task(page, label_studio.url, project, task_id)
        page.screenshot(path=str(ARTIFACTS / f"ranker-{name}.png"), full_page=True)
        shown.append([card.strip().split("\n")[-1].strip() for card in page.locator(ITEM).all_inner_texts()])
    assert shown == [["r2", "r0", "r3", "r1"], ["1", "2", "3"]]
