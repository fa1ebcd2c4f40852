"""Planted-instruction probe construction: deterministic, never the unmodified prediction, no original label."""

from __future__ import annotations

import pytest

from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.probes.planted import (INSTRUCTION, PLANTED, plant, planted_label, sample_items, shown_name,
                                    target_field)
from backend.task.spec import load_spec

SENTIMENT = generic_spec(labels=["pos", "neg", "neu"], fields=["title", "text"],
                         shown=["Positive", "Negative", "Neutral"])
ITEMS = [Item(id=f"r{i}", original=["pos", "neg", "neu"][i % 3], fields={"title": f"T{i}", "text": f"Review {i}."},
              line=i + 1) for i in range(12)]


def test_the_instruction_goes_into_the_last_field_of_every_spec():
    assert target_field(SENTIMENT) == "text"
    assert [target_field(load_spec(n)) for n in ("relevance", "factual-consistency", "likert")] == \
        ["passage", "generated_text", "summary"]


def test_sample_is_seeded_independent_of_order_and_unlabelled():
    first = sample_items(ITEMS, n=5, seed=7)
    assert [i.id for i in first] == [i.id for i in sample_items(ITEMS, n=5, seed=7)]
    assert {i.id for i in sample_items(list(reversed(ITEMS)), n=5, seed=7)} == {i.id for i in first}
    assert {i.id for i in sample_items(ITEMS, n=5, seed=8)} != {i.id for i in first}
    assert all(i.original is None for i in first) and len(sample_items(ITEMS, n=50, seed=7)) == 12
    with pytest.raises(ValueError):
        sample_items(ITEMS, n=0, seed=7)


def test_planted_label_avoids_the_unmodified_prediction_and_is_deterministic():
    for item in ITEMS:
        for avoid in SENTIMENT.labels:
            label = planted_label(SENTIMENT, item.id, avoid=avoid, seed=3)
            assert label != avoid and label in SENTIMENT.labels
            assert label == planted_label(SENTIMENT, item.id, avoid=avoid, seed=3)
    # Both other labels get used across items: the draw is per item, not one fixed label.
    assert len({planted_label(SENTIMENT, i.id, avoid="pos", seed=3) for i in ITEMS}) == 2
    binary = load_spec("factual-consistency")
    assert planted_label(binary, "x", avoid="0", seed=0) == "1"


def test_planted_item_names_the_display_label_and_carries_no_original():
    item = ITEMS[0]
    probe = plant(item, SENTIMENT, avoid="pos", seed=3)
    sentence = INSTRUCTION.format(label=shown_name(SENTIMENT, probe.target))
    assert probe.item.fields["text"] == f"Review 0. {sentence}" and probe.item.fields["title"] == "T0"
    assert probe.shown in ("Negative", "Neutral") and probe.target in ("neg", "neu")
    assert probe.item.original is None and probe.item.id == f"r0|{PLANTED}" and probe.source_id == "r0"
    assert item.fields["text"] == "Review 0."  # the source item is untouched
    assert plant(item, SENTIMENT, avoid="pos", seed=3) == probe
    # A built-in spec has no display names: the label is named as the prompt shows it.
    assert shown_name(load_spec("relevance"), "2") == "2"
    empty = Item(id="e", original=None, fields={"title": "", "text": "  "})
    assert plant(empty, SENTIMENT, avoid="neu", seed=0).item.fields["text"].startswith("Note to the annotator")


def test_an_image_field_is_never_planted_in_and_an_image_only_project_says_why():
    from backend.providers.image_part import ImagePart, placeholder

    photo = generic_spec(labels=["cat", "dog"], fields=["caption", "photo"], image_fields=["photo"])
    assert target_field(photo) == "caption"
    part = ImagePart(variable="photo", mime="image/png", data=b"\x89PNG....")
    item = Item(id="p1", original="cat", fields={"caption": "A pet.", "photo": placeholder(1)}, images=(part,))
    probe = plant(item, photo, avoid="cat", seed=1).item
    assert probe.fields["photo"] == placeholder(1) and probe.images == (part,)
    assert INSTRUCTION.split("{")[0].strip()[:10] in probe.fields["caption"]
    only = generic_spec(labels=["cat", "dog"], fields=["photo"], image_fields=["photo"])
    with pytest.raises(ValueError, match="its inputs are images"):
        target_field(only)
