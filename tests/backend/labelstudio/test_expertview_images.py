"""The expert view of image projects: the image (zoomable, nothing but its field) with the text inputs."""

from __future__ import annotations

from backend.labelstudio.labelconfig import parse_label_config
from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.source import SourceProject

SINGLE = """<View>
  <Header value="Photo"/>
  <Image name="photo" value="$photo" maxWidth="400px" brightnessControl="true" crosshair="true"/>
  <Header value="Caption"/>
  <Text name="caption" value="$caption"/>
  <Choices name="kind" toName="photo" choice="single-radio">
    <Choice value="cat"/><Choice value="dog"/>
  </Choices>
</View>"""
MULTI = """<View>
  <Image name="img" value="$img"/>
  <Choices name="tags" toName="img" choice="multiple">
    <Choice value="outdoor"/><Choice value="people"/><Choice value="night"/>
  </Choices>
</View>"""


def _source(config: str) -> SourceProject:
    spec = spec_from_label_config(config)
    return SourceProject(1, config, spec, spec.label_field)


def test_review_config_shows_the_image_and_the_text_under_their_titles():
    source = _source(SINGLE)
    root = parse_label_config(source.review_config())
    (image,) = root.iter("Image")
    assert image.attrib == {"name": "photo", "value": "$photo", "zoom": "true", "zoomControl": "true"}
    assert [t.get("name") for t in root.iter("Text")] == ["caption"]
    headers = [h.get("value") for h in root.iter("Header")]
    assert headers[:2] == ["Photo", "Caption"]
    (choices,) = root.iter("Choices")
    assert choices.get("toName") == "photo" and choices.get("choice") == "single-radio"
    assert source.input_fields() == ["photo", "caption"]


def test_multi_label_image_review_and_reconcile_configs():
    source = _source(MULTI)
    for config in (source.review_config(), source.reconcile_config(2)):
        root = parse_label_config(config)
        (image,) = root.iter("Image")
        assert image.get("value") == "$img"
        (choices,) = root.iter("Choices")
        assert choices.get("choice") == "multiple" and choices.get("toName") == "img"
    reconcile = parse_label_config(source.reconcile_config(2))
    assert [t.get("name") for t in reconcile.iter("Text")] == ["expert_a", "expert_b"]
