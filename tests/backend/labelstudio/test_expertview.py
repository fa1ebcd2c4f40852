"""The expert's view: titled inputs, choices with meanings, guidelines shown only when they name no item."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from backend.labelstudio.expertview import (
    MEANING_SEP,
    check_guidelines,
    defined_meanings,
    expert_label_config,
    field_title,
)
from backend.labelstudio.labelconfig import choice_from_result
from backend.labelstudio.projectspec import spec_from_label_config

SOURCE = """<View>
  <Header value="Is the claim supported by the passage? Read both fully."/>
  <Text name="passage" value="$passage"/>
  <Header value="$crowd_label"/>
  <Text name="claim" value="$claim"/>
  <Text name="crowd" value="$crowd_label"/>
  <Choices name="verdict" toName="claim">
    <Choice value="0" hint="the passage contradicts the claim or says nothing about it" selected="true"/>
    <Choice value="1"/>
  </Choices>
  <TextArea name="note" toName="claim"/>
</View>"""
GUIDELINES = "<h3>Claims</h3><p>1: every part of the claim is stated in the passage</p><p>0 = anything else</p>"


def built(guidelines: str = GUIDELINES) -> ET.Element:
    return ET.fromstring(expert_label_config(SOURCE, control="verdict", exclude_fields=("crowd_label",),
                                             guidelines_html=guidelines))


def test_each_input_keeps_a_static_title_and_no_dynamic_header():
    root = built()
    headers = [h.get("value") for h in root.iter("Header")]
    assert headers == ["Is the claim supported by the passage? Read both fully.", "Passage", "Claim", "Your label"]
    assert not any("$" in h for h in headers)  # a header showing a data field (here: the label) is dropped
    shown = [el.get("value") for el in root.iter() if (el.get("value") or "").startswith("$")]
    assert shown == ["$passage", "$claim"]
    assert [el.tag for el in root] == ["Header", "Header", "Text", "Header", "Text", "Header", "Choices"]


def test_choices_show_their_meaning_but_store_the_bare_label():
    root = built()
    choices = {c.get("alias"): c for c in root.iter("Choice")}
    assert choices["0"].get("value") == f"0{MEANING_SEP}the passage contradicts the claim or says nothing about it"
    assert choices["1"].get("value") == f"1{MEANING_SEP}every part of the claim is stated in the passage"
    assert not any(c.get("selected") for c in choices.values())
    # The review config still yields the same label set, so answers normalise to the source's labels.
    spec = spec_from_label_config(ET.tostring(root, encoding="unicode"))
    assert spec.labels == ("0", "1")
    answer = [{"from_name": "verdict", "type": "choices", "value": {"choices": ["1"]}}]
    assert choice_from_result(answer, control="verdict") == "1"


def test_without_hint_or_definition_a_choice_stays_bare():
    root = built(guidelines="")
    assert {c.get("alias"): c.get("value") for c in root.iter("Choice")}["1"] == "1"


def test_an_aliased_choice_already_shows_its_meaning():
    xml = '<View><Text name="t" value="$t"/><Choices name="c" toName="t"><Choice value="Positive" alias="pos"/>' \
          '<Choice value="Negative" alias="neg"/></Choices></View>'
    root = ET.fromstring(expert_label_config(xml, control=None, exclude_fields=()))
    assert [(c.get("value"), c.get("alias")) for c in root.iter("Choice")] == [("Positive", "pos"), ("Negative", "neg")]


def test_definitions_are_read_from_guideline_lines():
    assert defined_meanings(GUIDELINES, ["0", "1", "2"]) == {
        "1": "every part of the claim is stated in the passage", "0": "anything else"}


@pytest.mark.parametrize("text", ["See task 12 for a typical case.", "as in #12", "<a href='/tasks/12'>here</a>",
                                  "Item 12 is a good example"])
def test_guidelines_naming_an_item_under_review_are_refused(text):
    found = check_guidelines(f"<p>{text}</p>", items={"12": {"claim": "x"}})
    assert found.html == "" and "refer to a task under review" in found.refused


def test_guidelines_quoting_an_item_are_refused():
    item = {"passage": "The museum is free on the first Sunday of each month. Tours start at ten.",
            "claim": "Entry is free."}
    quoted = "<p>For example: <i>the museum is free on the first Sunday of each month.</i> is supported</p>"
    found = check_guidelines(quoted, items={"7": item})
    assert found.html == "" and "quote the text of an item under review (task 7)" in found.refused


def test_ordinary_guidelines_pass_unchanged():
    found = check_guidelines(GUIDELINES + "<p>Rate the item 0 or 1; task 3 of the tutorial explains why.</p>",
                             items={"12": {"claim": "Entry is free."}})
    assert found.refused is None and found.html.startswith("<h3>Claims</h3>")
    assert check_guidelines("", items={}).html == ""


def test_field_title():
    assert field_title("generated_text") == "Generated text"
    assert field_title("premise") == "Premise"


def test_static_text_about_a_verdict_is_dropped():
    xml = """<View><Header value="Premise. Our LLM says: likely 0"/><Text name="p" value="$p"/>
      <Choices name="c" toName="p"><Choice value="0" hint="the prediction is usually right"/><Choice value="1"/></Choices>
    </View>"""
    root = ET.fromstring(expert_label_config(xml, control=None, exclude_fields=()))
    assert [h.get("value") for h in root.iter("Header")] == ["P", "Your label"]
    assert [c.get("value") for c in root.iter("Choice")] == ["0", "1"]
    found = check_guidelines("<p>The original label is often wrong.</p>", items={})
    assert found.html == "" and "talk about a verdict" in found.refused
