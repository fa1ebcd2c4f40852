"""Planted projects: one label config per family, a true label per item, and annotators of known accuracy.

Each :class:`Case` is a Label Studio config (so the spec comes from the product's own
:func:`backend.labelstudio.projectspec.spec_from_label_config`) and a rule for drawing a true value and an
annotator's value of one control. The original label is one annotator's answer: right with probability
``annotator_accuracy``, else a value drawn from the control's other values (for a rating: one or two steps
away, so that some slips are within ``delta`` and some beyond it; for a set: each label flipped). A
conditional control (``visibleWhen``) is answered only where the answer it depends on shows it; the planted
slips of the control it depends on never cross the condition's value, so the true and the original values
show it on the same items (the domain of the conditional control is then known exactly).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Mapping

from backend.labelstudio.projectspec import spec_from_label_config
from backend.task.spec import TaskSpec

from .spans import span_slip, span_text, span_truth

__all__ = ["CASES", "Case", "PlantedItem", "annotate", "plant"]

TEXT = '<Text name="text" value="$text"/>'

CONFIGS: dict[str, str] = {
    "binary": f'<View>{TEXT}<Choices name="label" toName="text"><Choice value="yes"/><Choice value="no"/></Choices></View>',
    "nominal": f'<View>{TEXT}<Choices name="topic" toName="text"><Choice value="sport"/><Choice value="politics"/>'
               '<Choice value="science"/></Choices></View>',
    "multilabel": f'<View>{TEXT}<Choices name="tags" toName="text" choice="multiple"><Choice value="urgent"/>'
                  '<Choice value="billing"/><Choice value="bug"/></Choices></View>',
    "rating": f'<View>{TEXT}<Rating name="stars" toName="text" maxRating="5"/></View>',
    "number": f'<View>{TEXT}<Number name="score" toName="text" min="0" max="4" step="1"/></View>',
    "pairwise": '<View><Text name="prompt" value="$prompt"/><Text name="answer1" value="$answer1"/>'
                '<Text name="answer2" value="$answer2"/><Pairwise name="pw" toName="answer1,answer2"/></View>',
    "spans": f'<View>{TEXT}<Labels name="entities" toName="text"><Label value="PER"/><Label value="ORG"/></Labels></View>',
    "controls": f'<View>{TEXT}'
                '<Choices name="verdict" toName="text"><Choice value="good"/><Choice value="poor"/>'
                '<Choice value="harmful"/></Choices>'
                '<View visibleWhen="choice-selected" whenTagName="verdict" whenChoiceValue="harmful">'
                '<Choices name="harm" toName="text"><Choice value="mild"/><Choice value="severe"/></Choices></View>'
                '<Rating name="quality" toName="text" maxRating="5"/></View>',
}
#: The conditional control of the ``controls`` case, the control it depends on and the value that shows it.
CONDITION = ("harm", "verdict", "harmful")


@dataclass(frozen=True)
class PlantedItem:
    """One item: its id, the true value, the original (one annotator's) value, and the crowd's answers."""

    id: str
    truth: str
    original: str
    fields: Mapping[str, str]
    crowd: Mapping[str, str]


@dataclass(frozen=True)
class Case:
    """A family's planted project: its config, how many items, how often labels are wrong."""

    family: str
    items: int = 300
    annotator_accuracy: float = 0.85
    crowd: int = 0  # extra annotators per item (their answers feed the crowd figures)
    truth_weights: tuple[float, ...] | None = None  # the true values' frequencies (None: uniform)

    @property
    def config(self) -> str:
        return CONFIGS[self.family]

    def spec(self) -> TaskSpec:
        return spec_from_label_config(self.config)


def _leaf_value(spec: TaskSpec, rng: random.Random, weights: tuple[float, ...] | None) -> str:
    if spec.family == "multilabel":
        return spec.task_family.encode_set(spec, [lab for lab in spec.labels if rng.random() < 0.3])
    labels = list(spec.labels)
    if spec.family == "pairwise":
        labels = labels[:2]
    return rng.choices(labels, weights=weights[:len(labels)] if weights else None)[0]


def _slip(spec: TaskSpec, truth: str, rng: random.Random, keep: Callable[[str], bool]) -> str:
    """An annotator's wrong value for ``truth`` (see the module docstring)."""
    if spec.family == "multilabel":
        chosen = set(spec.task_family.decode(spec, truth))
        flip = rng.choice(spec.labels)
        chosen ^= {flip}
        return spec.task_family.encode_set(spec, chosen)
    labels = [lab for lab in spec.labels if lab != truth and keep(lab)]
    if spec.family == "pairwise":
        labels = [lab for lab in labels if lab in spec.labels[:2]]
    if spec.task_family.ordered:  # one step away twice as often as two steps
        at = spec.labels.index(truth)
        near = [lab for lab in labels if abs(spec.labels.index(lab) - at) <= 2]
        weights = [2.0 if abs(spec.labels.index(lab) - at) == 1 else 1.0 for lab in near]
        return rng.choices(near, weights=weights)[0] if near else truth
    return rng.choice(labels) if labels else truth


def annotate(spec: TaskSpec, truth: str, accuracy: float, rng: random.Random) -> str:
    """One annotator's answer (composite: control by control, the conditional one only where shown)."""
    controls = getattr(spec, "controls", ())
    if not controls:
        return truth if rng.random() < accuracy else _slip(spec, truth, rng, lambda _: True)
    family = spec.task_family
    true = family.control_values(spec, truth)
    out = {}
    conditional, parent, shown_by = CONDITION
    for control in controls:
        if control.name not in true:
            continue
        keep = (lambda lab: lab != shown_by) if control.name == parent and true[parent] != shown_by else \
            (lambda lab: False) if control.name == parent else (lambda _: True)
        value = true[control.name]
        out[control.name] = value if rng.random() < accuracy else _slip(control.spec, value, rng, keep)
    return family.encode_controls(spec, out)


def _truth(spec: TaskSpec, rng: random.Random, weights: tuple[float, ...] | None) -> str:
    controls = getattr(spec, "controls", ())
    if not controls:
        return _leaf_value(spec, rng, weights)
    values = {c.name: _leaf_value(c.spec, rng, None) for c in controls}
    conditional, parent, shown_by = CONDITION
    if values.get(parent) != shown_by:
        values.pop(conditional, None)
    return spec.task_family.encode_controls(spec, values)


def plant(case: Case, spec: TaskSpec, rng: random.Random) -> list[PlantedItem]:
    """``case.items`` items with a true value, an original and ``case.crowd`` more annotators each."""
    out = []
    for k in range(case.items):
        if spec.family == "spans":  # a text of its own per item (bench/simulate/spans.py)
            text, offsets = span_text(k)
            truth = span_truth(spec, text, offsets, rng)
            original = span_slip(spec, truth, text, offsets, case.annotator_accuracy, rng)
            out.append(PlantedItem(f"{k + 1}", truth, original, {"text": text}, {}))
            continue
        truth = _truth(spec, rng, case.truth_weights)
        original = annotate(spec, truth, case.annotator_accuracy, rng)
        crowd = {f"annotator {j + 1}": annotate(spec, truth, case.annotator_accuracy, rng) for j in range(case.crowd)}
        if crowd:
            crowd = {"annotator 0": original, **crowd}
        fields = {"text": f"item {k}", "prompt": f"prompt {k}", "answer1": f"first {k}", "answer2": f"second {k}"}
        out.append(PlantedItem(f"{k + 1}", truth, original, fields, crowd))
    return out


CASES: dict[str, Case] = {
    "binary": Case("binary", crowd=2),
    "nominal": Case("nominal"),
    "multilabel": Case("multilabel", annotator_accuracy=0.9),
    "rating": Case("rating", annotator_accuracy=0.8),
    "number": Case("number", annotator_accuracy=0.8),
    "pairwise": Case("pairwise", annotator_accuracy=0.85),
    "spans": Case("spans", annotator_accuracy=0.8),
    "controls": Case("controls", annotator_accuracy=0.85),
}
