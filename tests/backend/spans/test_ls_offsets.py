"""How Label Studio 1.23.2 counts span offsets, measured on a real server and in headless Chromium.

A person selects words in the labelling view (double-click with a label chosen, as annotators do);
the saved annotation is read back through the API: its offsets select exactly the word in Python
code points — an emoji counts 1, a skin-tone modifier its own 1, a combining mark its own character,
CRLF 2 — and would be wrong as UTF-16 units. Then span predictions written by
:func:`backend.spans.assemble.prediction_result` are imported and opened in the browser: each
highlighted region shows exactly its span's text, and the suspects tab lists the flagged tasks,
surest first. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import pytest

from backend.labelstudio.predictions import import_predictions
from backend.spans.assemble import PredictedSpan, item_score, prediction_result
from backend.spans.lsresult import read_spans
from backend.spans.model import Span
from backend.spans.offsets import codepoint_to_utf16
from tests.backend.spans.ls_pages import highlights, login, open_task, pick_word, submit, suspects_tab
from tests.support.browser import ARTIFACTS, headless_chromium

pytestmark = pytest.mark.labelstudio

NER = """<View>
  <Labels name="label" toName="text">
    <Label value="PER"/>
    <Label value="LOC"/>
  </Labels>
  <Text name="text" value="$text"/>
</View>"""
# (text, [(word, label), ...]) the person marks by double-clicking.
PICKS = [
    ("Meet 😀 Anna in Oslo today", [("Anna", "PER"), ("Oslo", "LOC")]),
    ("Zoe\u0308 met 👍🏽 Bob", [("Zoe\u0308", "PER"), ("Bob", "PER")]),
    ("Line one\r\nBob lives in Rome", [("Bob", "PER"), ("Rome", "LOC")]),
]
MV = "label-audit-spans0001"


def test_a_person_selecting_text_is_stored_in_code_points(label_studio):
    project, ids = label_studio.create_project(NER, [{"text": t} for t, _ in PICKS])
    lead = label_studio.process
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        login(page, label_studio.url, lead.username, lead.password)
        for task_id, (_, words) in zip(ids, PICKS):
            open_task(page, label_studio.url, project, task_id)
            for word, label in words:
                pick_word(page, word, label)
            page.screenshot(path=str(ARTIFACTS / f"spans-selected-{task_id}.png"))
            submit(page)
    differs_in_utf16 = 0
    for task_id, (text, words) in zip(ids, PICKS):
        anns = label_studio.client.annotations.list(id=task_id)
        assert len(anns) == 1, f"task {task_id}: the browser did not save one annotation"
        read = read_spans(anns[0].result, text, control="label", labels=("PER", "LOC"))
        assert read.problems == () and read.converted_utf16 == 0
        assert sorted((s.text, s.label) for s in read.spans) == sorted(words)
        for region in anns[0].result:
            value = region["value"]
            assert text[value["start"]:value["end"]] == value["text"]  # Python slicing = LS's offsets
            differs_in_utf16 += codepoint_to_utf16(text, value["start"]) != value["start"]
    assert differs_in_utf16 >= 2  # Anna, Oslo and Bob stand after an emoji: UTF-16 would be off


TEXTS = ["Meet 😀 Anna in 東京 today", "Ann met Ann and 👍🏽 Zoe\u0308\r\nin Paris", "Nothing here"]


def predictions():
    """Per task: predicted spans (one flagged task per kind of emphasis) written as LS regions."""
    a, b, _ = TEXTS
    first = [PredictedSpan(Span(7, 11, "PER", "Anna"), 0.7, False),
             PredictedSpan(Span(15, 17, "LOC", "東京"), 0.9, True, "wrong_type")]
    second = [PredictedSpan(Span(8, 11, "PER", "Ann"), 0.6, True, "missed"),  # the second "Ann"
              PredictedSpan(Span(19, 23, "PER", "Zoe\u0308"), 0.8, False),
              PredictedSpan(Span(28, 33, "LOC", "Paris"), 0.95, True, "boundary")]
    assert [p.span.text for p in first] == [a[7:11], a[15:17]] and [p.span.text for p in second] == [
        b[8:11], b[19:23], b[28:33]]
    return [first, second, []]


def test_span_predictions_highlight_exactly_their_text(label_studio):
    project, ids = label_studio.create_project(NER, [{"text": t} for t in TEXTS])
    per_task = predictions()
    requests = [{"task": tid, "result": prediction_result(spans, control="label", to_name="text", model_version=MV),
                 "score": item_score(spans), "model_version": MV} for tid, spans in zip(ids, per_task)]
    import_predictions(label_studio.client, str(project), requests)
    for task_id, text, spans in zip(ids, TEXTS, per_task):
        stored = label_studio.client.predictions.list(task=task_id)
        assert len(stored) == 1
        assert read_spans(stored[0].result, text, control="label").spans == tuple(sorted(p.span for p in spans))
    _, listed = suspects_tab(label_studio, project)
    assert listed == [ids[1], ids[0]]  # flagged tasks only, highest flagged confidence first (0.95, 0.9)
    lead = label_studio.process
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        login(page, label_studio.url, lead.username, lead.password)
        for task_id, spans in zip(ids[:2], per_task):
            open_task(page, label_studio.url, project, task_id)
            page.screenshot(path=str(ARTIFACTS / f"spans-predicted-{task_id}.png"))
            assert sorted(highlights(page)) == sorted((p.span.text, p.span.start, p.span.end) for p in spans)
