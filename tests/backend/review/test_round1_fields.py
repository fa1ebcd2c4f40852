"""Round 2 shows each control's round-1 answers in a field of its own, whatever the controls are named.

Before: the field was ``round1_`` + the name with every non-word character folded into ``_``, so ``a-b``
and ``a_b`` both got ``round1_a_b``: the round-2 config held two ``<Text name="round1_a_b">`` and each task
one value for both, so one control's answers were shown under the other.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from backend.labelstudio import expertcontrols
from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.round1_text import round1_text
from backend.review.source import SourceProject

CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Rating name="a-b" toName="text" maxRating="3"/>
  <Rating name="a_b" toName="text" maxRating="5"/>
  <Rating name="a b" toName="text" maxRating="4"/>
</View>"""


def _source() -> SourceProject:
    spec = spec_from_label_config(CONFIG)
    return SourceProject(project_id=1, label_config=CONFIG, spec=spec, label_field=spec.label_field)


def test_the_round_two_config_has_one_answers_field_per_control() -> None:
    source = _source()
    root = ET.fromstring(source.reconcile_config(2))
    shown = [t.get("value") for t in root.iter("Text") if (t.get("value") or "").startswith("$round1_")]
    assert len(shown) == 3 and len(set(shown)) == 3, shown
    assert len({t.get("name") for t in root.iter("Text")}) == len(list(root.iter("Text")))  # LS needs unique names
    # each task carries exactly those fields, one per control, with that control's own answers
    answers = {"x@la.test": '{"a-b":"1","a_b":"5","a b":"4"}', "y@la.test": '{"a-b":"3","a_b":"5","a b":"4"}'}
    data = round1_text(source, ["x@la.test", "y@la.test"], answers)
    assert sorted(f"${k}" for k in data) == sorted(shown)
    fields = source.round1_fields()
    assert "Expert A: 1" in data[fields["a-b"]] and "you split" in data[fields["a-b"]]
    assert "Expert A: 5" in data[fields["a_b"]] and "settled" in data[fields["a_b"]]


def test_a_plain_name_keeps_its_readable_field() -> None:
    fields = expertcontrols.round1_fields(["a-b", "a_b", "fluency"])
    assert fields["a_b"] == "round1_a_b" and fields["fluency"] == "round1_fluency"  # as before: old projects match
    assert fields["a-b"].startswith("round1_a_b_") and len(set(fields.values())) == 3
    assert expertcontrols.round1_fields(["x"], taken={"round1_x"})["x"] != "round1_x"  # nor an input's field
