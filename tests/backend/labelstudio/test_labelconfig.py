"""Task specs and blind review configs derived from realistic Label Studio label configs."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from backend.labelstudio.labelconfig import choice_from_result, expert_field, expert_name, reconcile_label_config, review_label_config

from backend.labelstudio.projectspec import spec_from_label_config

# The shape of LS's "Text classification" template, with the kind of extras a project lead adds.
FACTUAL = """
<View>
  <Header value="Is the generated text supported by the grounding? Our LLM says: likely 0"/>
  <Text name="grounding" value="$grounding"/>
  <Text name="generated_text" value="$generated_text"/>
  <Text name="original" value="$label"/>
  <Choices name="consistency" toName="generated_text" choice="single" showInLine="true">
    <Choice value="Inconsistent" alias="0" hint="pick this if anything contradicts"/>
    <Choice value="Consistent" alias="1" selected="true"/>
  </Choices>
  <TextArea name="comment" toName="generated_text" placeholder="why?"/>
</View>
"""

LIKERT = """
<View>
  <Text name="source" value="$source"/>
  <View style="margin-top: 1em">
    <Text name="summary" value="$summary"/>
  </View>
  <Choices name="coherence" toName="summary" choice="single-radio">
    <Choice value="5"/><Choice value="4"/><Choice value="3"/><Choice value="2"/><Choice value="1"/>
  </Choices>
</View>
"""


def test_binary_spec_uses_aliases_in_numeric_order_and_skips_the_label_field():
    spec = spec_from_label_config(FACTUAL, name="factual-consistency")
    assert spec.family == "binary"
    assert spec.labels == ("0", "1")
    assert spec.negative_label == "0"
    assert dict(spec.fields) == {"grounding": "grounding", "generated_text": "generated_text"}
    assert spec.prompt_dir == "factual_consistency"
    assert spec.binding.from_name == "consistency"
    assert spec.binding.to_name == "generated_text"


def test_numeric_choices_make_an_ascending_ordinal_spec():
    spec = spec_from_label_config(
        LIKERT.replace('choice="single-radio"', 'choice="single"'), name="likert"
    )
    assert spec.family == "ordinal"
    assert spec.labels == ("1", "2", "3", "4", "5")
    assert dict(spec.fields) == {"source": "source", "summary": "summary"}


def test_single_radio_is_a_single_choice_and_multiple_is_multi_label():
    assert spec_from_label_config(LIKERT.replace("single-radio", "single")).labels[0] == "1"
    multi = spec_from_label_config(LIKERT.replace("single-radio", "multiple"))
    assert multi.family == "multilabel" and set(multi.labels) == {"1", "2", "3", "4", "5"}
    with pytest.raises(ValueError, match="allows several choices .multi-label.: family 'ordinal' does not fit"):
        spec_from_label_config(LIKERT.replace("single-radio", "multiple"), family="ordinal")


@pytest.mark.parametrize(
    ("xml", "reason"),
    [
        ("", "empty"),
        ("<View><Text name='t' value='$t'/>", "well-formed"),
        ("<View><Text name='t' value='$t'/></View>", "no control a judge can answer"),
        ("<View><Text name='t' value='$t'/><TextArea name='c' toName='t'/></View>", "TextArea name='c'.*free text"),
        (
            "<View><Text name='t' value='$t'/><Choices name='c' toName='t'>"
            + "".join(f"<Choice value='class {i}'/>" for i in range(27)) + "</Choices></View>",
            "at most 26 classes",
        ),
        ("<View><Choices name='c' toName='t'><Choice value='0'/><Choice value='1'/></Choices></View>", "no input"),
        (
            "<View><Text name='t' value='$t'/><Choices name='c' toName='t'><Choice value='0'/></Choices></View>",
            "at least two",
        ),
    ],
)
def test_unusable_configs_raise_with_the_reason(xml, reason):
    with pytest.raises(ValueError, match=reason):
        spec_from_label_config(xml)


def test_several_choices_are_audited_together_each_as_its_own_task():
    xml = (
        "<View><Text name='t' value='$t'/><Choices name='a' toName='t'><Choice value='0'/><Choice value='1'/>"
        "</Choices><Choices name='b' toName='t'><Choice value='x'/><Choice value='y'/><Choice value='z'/></Choices></View>"
    )
    spec = spec_from_label_config(xml)
    assert spec.family == "controls" and spec.labels == ("a", "b")
    assert [(c.name, c.spec.family, c.spec.labels) for c in spec.controls] == [
        ("a", "binary", ("0", "1")), ("b", "nominal", ("x", "y", "z"))]
    assert spec.controls[0].spec == spec_from_label_config(xml, control="a")  # exactly its spec alone


def test_control_picks_one_of_several_choices():
    xml = (
        "<View><Text name='t' value='$t'/><Choices name='a' toName='t'><Choice value='0'/><Choice value='1'/>"
        "</Choices><Choices name='b' toName='t'><Choice value='x'/><Choice value='y'/></Choices></View>"
    )
    assert spec_from_label_config(xml, control="b").labels == ("x", "y")


def test_review_config_keeps_only_inputs_and_choices():
    xml = review_label_config(FACTUAL)
    root = ET.fromstring(xml)
    tags = [el.tag for el in root.iter()]
    assert tags == ["View", "Text", "Text", "Choices", "Choice", "Choice"]
    assert [el.get("value") for el in root.iter("Text")] == ["$grounding", "$generated_text"]
    assert "LLM" not in xml and "hint" not in xml and "selected" not in xml and "$label" not in xml
    choices = [(c.get("value"), c.get("alias")) for c in root.iter("Choice")]
    assert choices == [("Inconsistent", "0"), ("Consistent", "1")]
    # The derived config still yields the same spec (labels and control), so answers map back.
    again = spec_from_label_config(xml)
    assert again.labels == ("0", "1") and again.binding.from_name == "consistency"


def test_review_config_retargets_choices_when_their_object_is_dropped():
    xml = (
        "<View><Text name='t' value='$t'/><Text name='orig' value='$gold'/>"
        "<Choices name='c' toName='orig'><Choice value='0'/><Choice value='1'/></Choices></View>"
    )
    root = ET.fromstring(review_label_config(xml, exclude_fields=("gold",)))
    assert root.find("Choices").get("toName") == "t"


def test_reconcile_config_shows_expert_answers_but_nothing_else():
    root = ET.fromstring(reconcile_label_config(FACTUAL, n_experts=3))
    values = [el.get("value") for el in root.iter("Text")]
    assert values == ["$grounding", "$generated_text", "$expert_a", "$expert_b", "$expert_c"]
    assert [expert_field(i) for i in range(2)] == ["expert_a", "expert_b"]
    assert expert_name(1) == "Expert B"
    with pytest.raises(ValueError):
        reconcile_label_config(FACTUAL, n_experts=1)


def test_choice_from_result_reads_the_named_control_only():
    result = [
        {"from_name": "comment", "type": "textarea", "value": {"text": ["1"]}},
        {"from_name": "consistency", "type": "choices", "value": {"choices": ["0"]}},
    ]
    assert choice_from_result(result, control="consistency") == "0"
    assert choice_from_result(result, control="other") is None
    assert choice_from_result([], control="consistency") is None


@pytest.mark.parametrize("name", ["factual-consistency", "likert", "relevance"])
def test_label_config_for_spec_round_trips(name):
    from backend.labelstudio.labelconfig import label_config_for_spec
    from backend.task.spec import load_spec

    spec = load_spec(name)
    derived = spec_from_label_config(label_config_for_spec(spec), name=name)
    assert derived.labels == spec.labels
    assert derived.family == spec.family
    assert dict(derived.fields) == dict(spec.fields)
    assert derived.prompt_dir == spec.prompt_dir
