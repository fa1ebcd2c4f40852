"""The control registry: each tag declared once in backend/controls/, every former registry a view of it.

Why: a control tag's facts lived in five registries in three layers, and the spec dispatch read any tag it did
not know as a ``<Number>``. These tests hold the views to what the layers read before, refuse an unknown tag,
and keep one XML parser.
"""

from __future__ import annotations

import pytest

from backend.controls.control_type import SKIPPED, ControlType
from backend.controls.parse import parse_label_config
from backend.controls.registry import (REGION_REASON, audited_tags, control_type, control_types, family_modules,
                                       render_attrs, result_kinds, skip_reason, spec_builder)
from backend.families.choices_spec import control_spec as choices_spec
from backend.families.rating import control_spec as rating_spec
from backend.labelstudio.projectspec import spec_from_label_config
from backend.spans.config import has_span_labels, span_control


def test_the_views_list_what_the_layers_read():
    assert audited_tags() == ("Choices", "Rating", "Number", "Pairwise", "Ranker")
    assert result_kinds() == ("choices", "rating", "number", "pairwise", "ranker")
    assert list(family_modules()) == ["binary", "ordinal", "nominal", "multilabel", "spans", "rating", "number",
                                      "pairwise", "ranker"]
    assert render_attrs("Number") == ("min", "max", "step", "slider")
    assert spec_builder("Rating") is rating_spec
    assert spec_builder("Choices") is choices_spec  # no tag test left in the project's spec derivation


def test_every_tag_is_declared_once_with_a_reason_when_skipped():
    types = control_types()
    assert all(t.tag == tag for tag, t in types.items())
    assert skip_reason("TextArea").startswith("free text") and skip_reason("Rating") == ""
    assert skip_reason("RectangleLabels") == skip_reason("Polygon") == REGION_REASON
    assert skip_reason("NoSuchTag") == "not a per-item choice among options"
    with pytest.raises(ValueError, match="say why"):
        ControlType(tag="X", audit=SKIPPED)
    with pytest.raises(ValueError, match="result type and a family"):
        ControlType(tag="X")


def test_an_unknown_tag_is_never_built_as_another_control():
    """The old dispatch's ``else`` built any tag it did not know as a ``<Number>``."""
    for tag in ("Taxonomy", "NoSuchTag", "Labels"):
        with pytest.raises(ValueError, match="no control type builds its spec"):
            spec_builder(tag)
    assert control_type("NoSuchTag") is None


def test_a_scale_control_builds_the_same_spec_through_the_registry():
    spec = spec_from_label_config('<View><Text name="t" value="$text"/><Header value="Stars?"/>'
                                  '<Rating name="r" toName="t" maxRating="4"/></View>')
    assert spec.family == "rating" and spec.labels == ("1", "2", "3", "4")
    assert spec.binding.kind == "rating" and spec.prompt.question == "Stars?"


def test_the_span_config_is_read_by_the_one_defused_parser():
    """backend/spans/config.py parsed with xml.etree, which expands entities; it now refuses them as every reader."""
    bomb = ('<!DOCTYPE v [<!ENTITY a "aaaaaaaaaa">]><View><Text name="t" value="$text"/>'
            '<Labels name="l" toName="t"><Label value="&a;"/></Labels></View>')
    with pytest.raises(ValueError, match="DTD or entities"):
        span_control(bomb)
    assert not has_span_labels(bomb)
    with pytest.raises(ValueError, match="DTD or entities"):
        parse_label_config(bomb)
