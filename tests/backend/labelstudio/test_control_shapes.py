"""The result shapes of Rating, Number, Pairwise, Taxonomy and conditional controls on Label Studio 1.23.2.

Measured as docs/controls.md says: a person answers each control in headless Chromium (Label Studio's own
template configs where there is one), submits, and the annotation is read back through the API; then
predictions of the shapes the control families write are bulk-imported (the endpoint the audit uses) and
the labelling view must show them pre-selected. Screenshots go to ``artifacts/``. Each test asserts the
shape a family relies on, so a Label Studio upgrade that changes one fails here first.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from backend.labelstudio.scoreview import show_scores
from tests.support import ls_controls as ui
from tests.support.browser import ARTIFACTS, headless_chromium, login
from tests.support.ls_templates import template_config

pytestmark = pytest.mark.labelstudio

GRADING = "generative-ai/response-grading"  # <Rating name="rating" toName="summary" required="true"/>
PREFERENCE = "generative-ai/human-feedback-collection"  # <Pairwise name="comparison" toName="answer1,answer2" .../>
TAXONOMY = "natural-language-processing/taxonomy"  # Archaea, Bacteria, Eukarya > Human, Oppossum, Extraterrestrial
TWO_LEVEL = "community-contributions/two-level-sentiment-analysis-of-x-twitter-posts"
NUMBER = """<View>
  <Text name="text" value="$text"/>
  <Header value="How many facts does the answer get right (0-10)?"/>
  <Number name="facts" toName="text" min="0" max="10"/>
</View>"""
CONDITIONAL_CHOICES = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="Positive"/><Choice value="Neutral"/><Choice value="Negative"/>
  </Choices>
  <Choices name="reason" toName="text" choice="single"
           visibleWhen="choice-selected" whenTagName="sentiment" whenChoiceValue="Negative">
    <Header value="What is wrong?"/>
    <Choice value="Price"/><Choice value="Service"/>
  </Choices>
</View>"""
CONDITIONAL_VIEW = """<View>
  <Text name="text" value="$text"/>
  <Choices name="verdict" toName="text" choice="single">
    <Choice value="Correct"/><Choice value="Incorrect"/>
  </Choices>
  <View visibleWhen="choice-selected" whenTagName="verdict" whenChoiceValue="Incorrect">
    <Header value="How severe is the error?"/>
    <Rating name="severity" toName="text" maxRating="5"/>
  </View>
</View>"""
DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
MV = "label-audit-shapes0001"


def summeval(control: str) -> str:
    """A SummEval-style config: one 1-5 ``<Choices>`` or ``<Rating>`` per dimension, each under its Header."""
    lines = ['<View>', '  <Header value="Article"/>', '  <Text name="article" value="$article"/>',
             '  <Header value="Summary"/>', '  <Text name="summary" value="$summary"/>']
    for name in DIMENSIONS:
        lines.append(f'  <Header value="{name.capitalize()} of the summary, 1 (worst) to 5 (best)"/>')
        if control == "Rating":
            lines.append(f'  <Rating name="{name}" toName="summary" maxRating="5"/>')
        else:
            lines += [f'  <Choices name="{name}" toName="summary" choice="single" showInline="true">',
                      *(f'    <Choice value="{v}"/>' for v in "12345"), '  </Choices>']
    return "\n".join([*lines, '</View>'])


def shape(result: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A result without the fields that vary (region ``id``, ``origin``)."""
    return [{k: r[k] for k in ("from_name", "to_name", "type", "value")} for r in result]


def region(from_name: str, to_name: str, kind: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"from_name": from_name, "to_name": to_name, "type": kind, "value": value}


def saved(ls: Any, task_id: int) -> list[list[dict[str, Any]]]:
    """Every annotation's result on the task, as the API returns them."""
    return [a.result for a in ls.client.annotations.list(id=task_id)]


@pytest.fixture(scope="module")
def page(label_studio) -> Iterator[Any]:
    """One headless Chromium page, logged in through the form as the lead (a person's account)."""
    with headless_chromium() as browser:
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        lead = label_studio.process
        login(tab, label_studio.url, lead.username, lead.password)
        yield tab


def answer(ls: Any, page: Any, project: int, task_id: int, gesture, name: str) -> list[str]:
    """Open the task, do ``gesture(page)``, screenshot, submit: the warnings that stopped the submit."""
    ui.open_task(page, ls.url, project, task_id)
    gesture(page)
    page.screenshot(path=str(ARTIFACTS / f"shapes-{name}.png"), full_page=True)
    return ui.submit(page)


def pick_paths(page: Any, paths: list[list[str]]) -> None:
    for path in paths:
        ui.pick_taxonomy(page, path)
    ui.close_taxonomy(page)


def test_rating_is_an_integer_under_rating(label_studio, page):
    project, ids = label_studio.create_project(template_config(GRADING), [{"document": "Opossums live in the Americas.",
                                                                           "summary": "Opossums are American."}] * 2)
    assert answer(label_studio, page, project, ids[0], lambda p: ui.click_star(p, 4), "rating-4") == []
    assert [shape(r) for r in saved(label_studio, ids[0])] == [[region("rating", "summary", "rating", {"rating": 4})]]
    assert isinstance(saved(label_studio, ids[0])[0][0]["value"]["rating"], int)
    # The same star again clears it; the template's required="true" then refuses the submit.
    warnings = answer(label_studio, page, project, ids[1], lambda p: (ui.click_star(p, 4), ui.click_star(p, 4)),
                      "rating-cleared")
    assert any('Rating "rating" is required' in w for w in warnings) and saved(label_studio, ids[1]) == []


def test_number_keeps_what_was_typed_inside_min_max(label_studio, page):
    project, ids = label_studio.create_project(NUMBER, [{"text": f"answer {i}"} for i in range(4)])
    typed = {ids[0]: ("7", False), ids[1]: ("7.5", False), ids[2]: ("12", False), ids[3]: ("7", True)}
    warnings = {}
    for task_id, (text, erase) in typed.items():
        warnings[task_id] = answer(label_studio, page, project, task_id,
                                   lambda p, s=text, e=erase: ui.type_number(p, "facts", s, then_clear=e),
                                   f"number-{task_id}")
    facts = lambda n: [[region("facts", "text", "number", {"number": n})]]  # noqa: E731
    assert [shape(r) for r in saved(label_studio, ids[0])] == facts(7)
    assert [shape(r) for r in saved(label_studio, ids[1])] == facts(7.5)  # no step attribute: fractions are kept
    assert any("less than or equal to 10" in w for w in warnings[ids[2]]) and saved(label_studio, ids[2]) == []
    assert [shape(r) for r in saved(label_studio, ids[3])] == facts(0)  # an erased field is saved as 0


def test_pairwise_is_left_or_right_on_its_own_name_and_has_no_tie(label_studio, page):
    data = {"prompt": "Name a prime number.", "answer1": "Seven is prime.", "answer2": "Nine is prime."}
    project, ids = label_studio.create_project(template_config(PREFERENCE), [data] * 4)
    gestures = [("left",), ("right",), ("left", "left"), ("left", "right")]
    for task_id, clicks in zip(ids, gestures):
        answer(label_studio, page, project, task_id, lambda p, c=clicks: [ui.click_side(p, s) for s in c],
               f"pairwise-{'-'.join(clicks)}")
    chosen = lambda side: [[region("comparison", "comparison", "pairwise", {"selected": side})]]  # noqa: E731
    assert [shape(r) for r in saved(label_studio, ids[0])] == chosen("left")
    assert [shape(r) for r in saved(label_studio, ids[1])] == chosen("right")
    assert saved(label_studio, ids[2]) == [[]]  # the chosen side clicked again: no preference, an empty result
    assert [shape(r) for r in saved(label_studio, ids[3])] == chosen("right")


def test_taxonomy_is_a_list_of_paths(label_studio, page):
    project, ids = label_studio.create_project(template_config(TAXONOMY), [{"text": f"organism {i}"} for i in range(4)])
    human = ["Eukarya", "Human"]
    picks = [[human], [["Eukarya"]], [["Archaea"], human], [["Eukarya"], human]]
    for task_id, paths in zip(ids, picks):
        answer(label_studio, page, project, task_id, lambda p, ps=paths: pick_paths(p, ps), f"taxonomy-{task_id}")
    for task_id, paths in zip(ids, picks):  # inner nodes and several nodes are selectable by default
        assert [shape(r) for r in saved(label_studio, task_id)] == [[region("taxonomy", "text", "taxonomy",
                                                                            {"taxonomy": paths})]]


def test_taxonomy_with_one_leaf_keeps_a_single_path(label_studio, page):
    config = template_config(TAXONOMY).replace('toName="text">', 'toName="text" leafsOnly="true" maxUsages="1">')
    assert 'maxUsages="1"' in config
    project, ids = label_studio.create_project(config, [{"text": "organism"}] * 2)
    answer(label_studio, page, project, ids[0], lambda p: pick_paths(p, [["Eukarya", "Human"], ["Archaea"]]),
           "taxonomy-one")
    answer(label_studio, page, project, ids[1], lambda p: pick_paths(p, [["Eukarya"]]), "taxonomy-inner-refused")
    assert [shape(r) for r in saved(label_studio, ids[0])] == [[region("taxonomy", "text", "taxonomy",
                                                                       {"taxonomy": [["Eukarya", "Human"]]})]]
    assert saved(label_studio, ids[1]) == [[]]


@pytest.mark.parametrize("control", ["Choices", "Rating"])
def test_summeval_gives_one_region_per_dimension(label_studio, page, control):
    data = {"article": "The council approved the new park on Monday after a long debate.",
            "summary": "The council approved a park."}
    project, ids = label_studio.create_project(summeval(control), [data])
    scores = dict(zip(DIMENSIONS, (4, 5, 3, 2)))

    def rate(p):
        for i, name in enumerate(DIMENSIONS):
            if control == "Rating":
                ui.click_star(p, scores[name], control=i)
            else:
                ui.pick_choice(p, str(scores[name]), control=i)

    answer(label_studio, page, project, ids[0], rate, f"summeval-{control}")
    want = [region(n, "summary", "rating", {"rating": s}) if control == "Rating"
            else region(n, "summary", "choices", {"choices": [str(s)]}) for n, s in scores.items()]
    assert [shape(r) for r in saved(label_studio, ids[0])] == [want]


def test_a_hidden_conditional_choices_is_left_out(label_studio, page):
    project, ids = label_studio.create_project(CONDITIONAL_CHOICES, [{"text": f"review {i}"} for i in range(4)])
    sequences = [["Positive"], ["Negative", "Service"], ["Negative", "Service", "Positive"],
                 ["Negative", "Service", "Positive", "Negative"]]
    hidden = {}
    for task_id, seq in zip(ids, sequences):
        def gesture(p, seq=seq, task_id=task_id):
            for value in seq:
                ui.pick_choice(p, value)
            hidden[task_id] = ui.choices_hidden(p, 1)
        answer(label_studio, page, project, task_id, gesture, f"conditional-{'-'.join(seq)}")
    sentiment = lambda v: region("sentiment", "text", "choices", {"choices": [v]})  # noqa: E731
    reason = region("reason", "text", "choices", {"choices": ["Service"]})
    assert [hidden[t] for t in ids] == [True, False, True, False]
    assert [shape(r) for r in saved(label_studio, ids[0])] == [[sentiment("Positive")]]
    assert [shape(r) for r in saved(label_studio, ids[1])] == [[sentiment("Negative"), reason]]
    # Answered, then hidden: dropped.
    assert [shape(r) for r in saved(label_studio, ids[2])] == [[sentiment("Positive")]]
    assert [shape(r) for r in saved(label_studio, ids[3])] == [[sentiment("Negative"), reason]]  # shown again: kept


def test_the_two_level_template_shows_its_second_level_after_any_sentiment(label_studio, page):
    project, ids = label_studio.create_project(template_config(TWO_LEVEL), [{"tweet": "Just got my results back."}])
    before = []

    def gesture(p):
        before.append(ui.choices_hidden(p, 1))
        ui.pick_choice(p, "Neutral")
        before.append(ui.choices_hidden(p, 1))
        ui.pick_choice(p, "Sarcams")
        ui.pick_choice(p, "Mixed")

    answer(label_studio, page, project, ids[0], gesture, "two-level")
    assert before == [True, False]
    assert [shape(r) for r in saved(label_studio, ids[0])] == [[
        region("sentiment", "tweet", "choices", {"choices": ["Neutral"]}),
        region("other-props", "tweet", "choices", {"choices": ["Mixed", "Sarcams"]})]]


def test_a_rating_under_a_hidden_view_is_still_submitted(label_studio, page):
    project, ids = label_studio.create_project(CONDITIONAL_VIEW, [{"text": "The capital of Peru is Quito."}])
    shown = []

    def gesture(p):
        ui.pick_choice(p, "Incorrect")
        shown.append(ui.rating_visible(p))
        ui.click_star(p, 3)
        ui.pick_choice(p, "Correct")
        shown.append(ui.rating_visible(p))

    answer(label_studio, page, project, ids[0], gesture, "conditional-view")
    assert shown == [True, False]
    # Absence does not tell a hidden control: the audit applies the condition itself.
    assert [shape(r) for r in saved(label_studio, ids[0])] == [[
        region("verdict", "text", "choices", {"choices": ["Correct"]}),
        region("severity", "text", "rating", {"rating": 3})]]


def import_bulk(ls: Any, project: int, per_task: dict[int, list[dict[str, Any]]]) -> int:
    """Bulk-import one prediction per task (the endpoint the audit uses): how many Label Studio kept."""
    done = ls.client.projects.import_predictions(id=project, request=[
        {"task": t, "result": result, "score": 0.5, "model_version": MV} for t, result in per_task.items()])
    show_scores(ls.client, project, MV)  # the project's model version: new annotations start from the prediction
    return int(done.created)


def look(ls: Any, page: Any, project: int, task_id: int, name: str, *, control: str | None = None) -> None:
    """Open the task as the lead and screenshot it (``control`` scrolled into view first)."""
    ui.open_task(page, ls.url, project, task_id)
    if control is not None:
        page.locator(control).first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"shapes-predicted-{name}.png"), full_page=True)


def test_predictions_preselect_rating_number_and_taxonomy(label_studio, page):
    grading, g = label_studio.create_project(template_config(GRADING), [{"document": "D.", "summary": "S."}] * 4)
    number, n = label_studio.create_project(NUMBER, [{"text": "t"}] * 2)
    taxonomy, x = label_studio.create_project(template_config(TAXONOMY), [{"text": "t"}] * 3)
    stars = lambda v: [region("rating", "summary", "rating", {"rating": v})]  # noqa: E731
    # The bulk import drops, without an error, what fails Label Studio's validation (the response counts the rest):
    # a rating above maxRating or not an integer, a taxonomy value not in the tree; a number off min..max passes.
    assert import_bulk(label_studio, grading, {g[0]: stars(3), g[1]: stars(6), g[2]: stars(2.5), g[3]: stars(0)}) == 2
    assert [len(label_studio.client.predictions.list(task=t)) for t in g] == [1, 0, 0, 1]
    assert import_bulk(label_studio, number, {n[0]: [region("facts", "text", "number", {"number": 6})],
                                              n[1]: [region("facts", "text", "number", {"number": 12})]}) == 2
    assert import_bulk(label_studio, taxonomy, {
        x[0]: [region("taxonomy", "text", "taxonomy", {"taxonomy": [["Eukarya", "Human"]]})],
        x[1]: [region("taxonomy", "text", "taxonomy", {"taxonomy": [["Archaea"], ["Eukarya"]]})],
        x[2]: [region("taxonomy", "text", "taxonomy", {"taxonomy": [["Eukarya", "Dog"]]})]}) == 2
    look(label_studio, page, grading, g[0], "rating", control=ui.STARS)
    assert ui.stars_lit(page) == 3
    look(label_studio, page, number, n[0], "number")
    assert ui.number_shown(page, "facts") == "6"
    look(label_studio, page, taxonomy, x[0], "taxonomy-leaf")
    assert ui.taxonomy_tags(page) == ["Human"]
    look(label_studio, page, taxonomy, x[1], "taxonomy-two")
    assert ui.taxonomy_tags(page) == ["Archaea", "Eukarya"]


def test_pairwise_predictions_name_an_object_and_never_a_tie(label_studio, page):
    data = {"prompt": "Name a prime number.", "answer1": "Seven is prime.", "answer2": "Nine is prime."}
    project, ids = label_studio.create_project(template_config(PREFERENCE), [data] * 3)
    pick = lambda side, to: [region("comparison", to, "pairwise", {"selected": side})]  # noqa: E731
    # The shape a person's answer has (to_name = the control's own name) fails the bulk import's validation.
    assert import_bulk(label_studio, project, {ids[0]: pick("left", "comparison")}) == 0
    # With to_name = the first object of toName it passes, and so does "tie", which the view cannot load.
    assert import_bulk(label_studio, project, {ids[0]: pick("right", "answer1"), ids[1]: pick("tie", "answer1")}) == 2
    look(label_studio, page, project, ids[0], "pairwise-right")
    assert ui.sides_selected(page) == ["right"]
    look(label_studio, page, project, ids[1], "pairwise-tie")
    assert any("No matching type for union" in e for e in ui.view_errors(page))
    # Submitted unchanged, the prediction's to_name stays: readers go by from_name and type.
    ui.open_task(page, label_studio.url, project, ids[0])
    assert ui.submit(page) == []
    assert [shape(r) for r in saved(label_studio, ids[0])] == [pick("right", "answer1")]


def test_conditional_predictions(label_studio, page):
    view, v = label_studio.create_project(CONDITIONAL_VIEW, [{"text": "The capital of Peru is Quito."}] * 2)
    choices, c = label_studio.create_project(CONDITIONAL_CHOICES, [{"text": "Too expensive."}])
    verdict = lambda value: region("verdict", "text", "choices", {"choices": [value]})  # noqa: E731
    severity = region("severity", "text", "rating", {"rating": 2})
    price = region("reason", "text", "choices", {"choices": ["Price"]})
    assert import_bulk(label_studio, view, {v[0]: [verdict("Incorrect"), severity],
                                            v[1]: [verdict("Correct"), severity]}) == 2
    assert import_bulk(label_studio, choices, {
        c[0]: [region("sentiment", "text", "choices", {"choices": ["Positive"]}), price]}) == 1
    look(label_studio, page, view, v[0], "conditional-shown")
    assert ui.choice_checked(page, "Incorrect") and ui.rating_visible(page) and ui.stars_lit(page) == 2
    look(label_studio, page, view, v[1], "conditional-hidden")
    assert ui.choice_checked(page, "Correct") and not ui.rating_visible(page)
    assert ui.submit(page) == []  # submitted as pre-filled: the hidden rating stays in the answer
    assert [shape(r) for r in saved(label_studio, v[1])] == [[verdict("Correct"), severity]]
    look(label_studio, page, choices, c[0], "conditional-choices-hidden")
    assert ui.choices_hidden(page, 1) and ui.submit(page) == []  # a hidden <Choices> answer is dropped
    assert [shape(r) for r in saved(label_studio, c[0])] == [[region("sentiment", "text", "choices",
                                                                     {"choices": ["Positive"]})]]
