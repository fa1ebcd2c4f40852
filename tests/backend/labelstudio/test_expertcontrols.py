"""The expert's view of an item with several controls, a rating, a number or a preference: every audited
control, neutral titles, nothing pre-selected, conditions on the expert's own answer."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from backend.controls.registry import control_type
from backend.labelstudio.expertcontrols import expert_controls_config, review_fields, round1_field
from backend.labelstudio.expertview import expert_label_config

DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
SUMMEVAL = """<View>
  <Header value="Read the article, then rate the summary on four dimensions. Most summaries are fine."/>
  <Text name="article" value="$article"/>
  <Text name="summary" value="$summary"/>
  <Text name="crowd" value="$crowd_scores"/>
""" + "\n".join(f"""  <Header value="{d.title()}: leave at 5 unless clearly worse"/>
  <Choices name="{d}" toName="summary" choice="single-radio" showInLine="true">
    {''.join(f'<Choice value="{v}"{" selected=" + chr(34) + "true" + chr(34) if v == 5 else ""}/>' for v in range(1, 6))}
  </Choices>""" for d in DIMENSIONS) + """
  <View visibleWhen="choice-selected" whenTagName="consistency" whenChoiceValue="1,2">
    <Header value="Which kind of error?"/>
    <Choices name="error_kind" toName="summary">
      <Choice value="invented fact" hint="a fact the article does not state"/>
      <Choice value="wrong entity"/>
    </Choices>
  </View>
  <TextArea name="notes" toName="summary"/>
</View>"""
GRADING = """<View>
  <Text name="prompt" value="$prompt"/>
  <Text name="response" value="$response"/>
  <Header value="Rate the response (most answers deserve 4)"/>
  <Rating name="rating" toName="response" maxRating="5" icon="star" size="medium" defaultValue="4" hotkey="r"/>
  <Number name="tokens_wasted" toName="response" min="0" max="10" step="1" defaultValue="0"/>
</View>"""
PREFERENCE = """<View>
  <Header value="Prompt:"/>
  <Text name="prompt" value="$prompt"/>
  <Header value="Chosen"/>
  <Text name="chosen" value="$chosen"/>
  <Header value="Rejected"/>
  <Text name="rejected" value="$rejected"/>
  <Header value="Choose the better one (the model preferred answer 1)"/>
  <Pairwise name="pw" toName="chosen,rejected" selectionStyle="background-color: #CCFFCC"/>
</View>"""


def built(xml: str, controls, **kw) -> ET.Element:
    return ET.fromstring(expert_controls_config(xml, controls=controls, exclude_fields=("crowd_scores",), **kw))


def blocks(root: ET.Element) -> dict[str, ET.Element]:
    """Each control's block (a ``<View>`` holding its title and the control), by control name."""
    return {next(e for e in b if e.get("toName")).get("name"): b for b in root.findall("View")}


def test_every_audited_control_shows_under_a_neutral_title_and_nothing_is_selected():
    root = built(SUMMEVAL, DIMENSIONS + ("error_kind",))
    assert list(blocks(root)) == [*DIMENSIONS, "error_kind"]
    titles = [b.find("Header").get("value") for b in blocks(root).values()]
    assert titles == ["Coherence", "Consistency", "Fluency", "Relevance", "Error kind"]
    every_header = [h.get("value") for h in root.iter("Header")]
    assert not any("5" in h or "Most" in h or "?" in h for h in every_header), every_header  # no source steering
    assert not any(c.get("selected") for c in root.iter("Choice"))
    assert [c.get("alias") for c in blocks(root)["fluency"].iter("Choice")] == ["1", "2", "3", "4", "5"]
    assert {e.tag for e in root.iter()} >= {"Text", "Choices"} and not list(root.iter("TextArea"))
    assert [e.get("value") for e in root.iter("Text")] == ["$article", "$summary"]  # no crowd scores


def test_a_conditional_control_keeps_its_condition_on_the_experts_own_answer():
    root = built(SUMMEVAL, DIMENSIONS + ("error_kind",))
    cond = blocks(root)["error_kind"]
    assert (cond.get("visibleWhen"), cond.get("whenTagName"), cond.get("whenChoiceValue")) == (
        "choice-selected", "consistency", "1,2")
    assert cond.find("Choices").get("required") is None  # hidden, it could not be answered
    assert all(blocks(root)[d].find("Choices").get("required") == "true" for d in DIMENSIONS)
    meanings = [c.get("hint") for c in cond.iter("Choice")]
    assert meanings == ["a fact the article does not state", None]
    # its condition's control not audited: the item was judged because the original met it, so it always shows
    alone = built(SUMMEVAL, ("coherence", "error_kind"))
    assert blocks(alone)["error_kind"].get("visibleWhen") is None


def test_rating_and_number_keep_their_scale_and_lose_their_defaults():
    root = built(GRADING, ("rating", "tokens_wasted"))
    rating, number = root.find(".//Rating"), root.find(".//Number")
    assert dict(rating.attrib) == {"name": "rating", "toName": "response", "maxRating": "5", "icon": "star",
                                   "size": "medium", "required": "true"}
    assert dict(number.attrib) == {"name": "tokens_wasted", "toName": "response", "min": "0", "max": "10",
                                   "step": "1", "required": "true"}
    assert [h.get("value") for h in root.iter("Header")][-2:] == ["Rating", "Tokens wasted"]


def test_pairwise_keeps_both_responses_and_asks_neutrally():
    root = built(PREFERENCE, ("pw",))
    pw = root.find(".//Pairwise")
    assert pw.get("toName") == "response_1,response_2" and pw.get("selectionStyle")
    assert "chosen" not in ET.tostring(root, encoding="unicode")  # nor in the config, readable in the settings
    headers = [h.get("value") for h in root.iter("Header")]
    # the responses' own titles (here the field names chosen/rejected) would name the original preference
    assert headers == ["Prompt", "Response 1", "Response 2", f"Pw ({control_type('Pairwise').review_ask})"]
    # ... and so would the data keys, which the expert's Data Manager shows as columns
    assert [t.get("value") for t in root.iter("Text")] == ["$prompt", "$response_1", "$response_2"]
    assert review_fields(PREFERENCE, controls=("pw",)) == {"chosen": "response_1", "rejected": "response_2"}
    assert not any("model" in h for h in headers)


def test_round_two_shows_the_answers_per_control_and_follows_no_condition():
    fields = {c: round1_field(c) for c in DIMENSIONS + ("error_kind",)}
    root = built(SUMMEVAL, DIMENSIONS + ("error_kind",), round1=fields)
    for name, block in blocks(root).items():
        assert [e.tag for e in block] == ["Header", "Text", "Choices"]
        assert block.find("Text").get("value") == f"${round1_field(name)}"
        assert block.get("visibleWhen") is None and block.find("Choices").get("required") is None
    assert round1_field("error kind") == "round1_error_kind"


def test_one_choices_control_keeps_the_single_control_view():
    assert expert_controls_config(SUMMEVAL, controls=("fluency",), exclude_fields=("crowd_scores",)) == \
        expert_label_config(SUMMEVAL, control="fluency", exclude_fields=("crowd_scores",))


def test_an_unknown_control_is_refused():
    with pytest.raises(ValueError, match="no control named 'style'"):
        built(SUMMEVAL, ("coherence", "style"))


def test_a_parsed_tree_gives_the_same_views_and_stays_unchanged():
    """The review's source project parses its config once and passes the tree (SourceProject.root): every view
    built from the tree equals the one built from the XML, and the tree is read, never changed."""
    from backend.controls.parse import parse_label_config

    for xml, controls in ((SUMMEVAL, list(DIMENSIONS)), (GRADING, ["rating", "tokens_wasted"]),
                          (PREFERENCE, ["pw"]), (SUMMEVAL, ["fluency"])):
        root = parse_label_config(xml)
        before = ET.tostring(root, encoding="unicode")
        kw = {"controls": controls, "exclude_fields": ("label",)}
        assert expert_controls_config(root, **kw) == expert_controls_config(xml, **kw)
        assert expert_controls_config(root, round1={c: f"r_{c}" for c in controls}, **kw) == \
            expert_controls_config(xml, round1={c: f"r_{c}" for c in controls}, **kw)
        assert review_fields(root, controls=controls) == review_fields(xml, controls=controls)
        assert ET.tostring(root, encoding="unicode") == before
