"""Label configs with ``<Image>`` inputs: the spec they give, and what is still refused, with its reason."""

from __future__ import annotations

import pytest

from backend.task.dataset import Item
from backend.providers.image_part import placeholder
from backend.labelstudio.labelconfig import label_config_for_spec, review_label_config
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.prompting import templates_for_spec, spec_params

ANIMALS = """<View>
  <Image name="image" value="$image"/>
  <Choices name="animal" toName="image" choice="single-radio">
    <Choice value="Cat"/><Choice value="Dog"/><Choice value="Bird"/>
  </Choices>
</View>"""

CAPTIONED = """<View>
  <Header value="Photo"/>
  <Image name="photo" value="$photo" zoom="true"/>
  <Header value="Caption"/>
  <Text name="caption" value="$caption"/>
  <Header value="Which tags apply?"/>
  <Choices name="tags" toName="photo" choice="multiple">
    <Choice value="outdoor"/><Choice value="people"/><Choice value="animal"/>
  </Choices>
</View>"""


def test_an_image_alone_with_single_choice_is_a_generic_image_spec():
    spec = spec_from_label_config(ANIMALS)
    assert spec.family == "nominal" and spec.labels == ("Cat", "Dog", "Bird")
    assert dict(spec.fields) == {"image": "image"} and spec.image_fields == ("image",)
    assert spec.prompt_dir == "generic" and spec.binding.to_name == "image"


def test_an_image_with_text_and_multiple_choice_keeps_both_inputs():
    spec = spec_from_label_config(CAPTIONED)
    assert spec.family == "multilabel" and spec.labels == ("outdoor", "people", "animal")
    assert list(spec.fields) == ["photo", "caption"] and spec.image_fields == ("photo",)
    assert spec.prompt.titles == {"photo": "Photo", "caption": "Caption"}


def test_a_builtin_spec_is_never_used_for_an_image_field():
    xml = ("<View><Image name='s' value='$summary'/><Text name='g' value='$grounding'/>"
           "<Choices name='label' toName='g'><Choice value='0'/><Choice value='1'/></Choices></View>")
    spec = spec_from_label_config(xml)
    assert spec.prompt_dir == "generic" and spec.image_fields == ("summary",)


def test_the_generic_prompt_shows_the_image_under_its_title_as_the_placeholder():
    spec = spec_from_label_config(CAPTIONED.replace('choice="multiple"', 'choice="single"'))
    item = Item(id="1", original="people", fields={"photo": placeholder(1), "caption": "Two people on a beach"})
    params = spec_params(spec)
    for template in templates_for_spec(spec):
        text = template.render(item.fields, params=params)
        assert "Photo:" in text and placeholder(1) in text and "Two people on a beach" in text
        assert text.index("Photo:") < text.index(placeholder(1)) < text.index("Caption:")


def test_image_specs_round_trip_and_change_the_model_version():
    spec = spec_from_label_config(ANIMALS)
    assert spec_from_label_config(label_config_for_spec(spec)).image_fields == ("image",)
    assert "<Image" in review_label_config(ANIMALS)
    from backend.worker.ensemble_config import EnsembleConfig

    cfg = EnsembleConfig()
    as_text = spec_from_label_config(ANIMALS.replace("<Image", "<Text"))
    assert as_text.image_fields == () and cfg.model_version(as_text) != cfg.model_version(spec)


@pytest.mark.parametrize(("xml", "reason"), [
    ("<View><Audio name='a' value='$audio'/><Choices name='c' toName='a'><Choice value='x'/><Choice value='y'/>"
     "</Choices></View>", "found <Audio>"),
    ("<View><Video name='v' value='$video'/><Choices name='c' toName='v'><Choice value='x'/><Choice value='y'/>"
     "</Choices></View>", "found <Video>"),
    ("<View><Image name='i' value='$pages' valueList='$pages'/><Choices name='c' toName='i'><Choice value='x'/>"
     "<Choice value='y'/></Choices></View>", "valueList"),
    ("<View><Image name='i' value='$img'/><RectangleLabels name='r' toName='i'><Label value='cat'/>"
     "</RectangleLabels></View>", "labels regions"),
    ("<View><Image name='i' value='$img'/><Text name='t' value='$img'/><Choices name='c' toName='i'>"
     "<Choice value='x'/><Choice value='y'/></Choices></View>", "both as an image and as text"),
])
def test_other_inputs_are_still_refused_with_the_reason(xml, reason):
    with pytest.raises(ValueError, match=reason) as info:
        spec_from_label_config(xml)
    assert "\n" not in str(info.value)
