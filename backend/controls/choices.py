"""``<Choices>``: one label (binary, ordinal, nominal) or a set of labels (``choice="multiple"``) per item.

Its element is read here (:func:`find_choice_control`: the labels a result stores, what the annotator sees,
single or multiple choice), once for the spec and the review; its spec is built by
:mod:`backend.families.choices_spec` (a built-in spec where the project shows its fields and labels, else
the generic prompts); its review keeps its ``<Choice>`` children (:mod:`backend.labelstudio.expertview`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from backend.controls.control_type import ControlType

__all__ = ["CONTROL_TYPES", "ChoiceControl", "find_choice_control"]

CONTROL_TYPES = (ControlType(
    tag="Choices", order=10, result_type="choices",
    families={"binary": "backend.families.single", "ordinal": "backend.families.single",
              "nominal": "backend.families.single", "multilabel": "backend.families.multilabel"},
    spec_builder="backend.families.choices_spec:control_spec",
),)


@dataclass(frozen=True)
class ChoiceControl:
    """The one ``<Choices>`` control a spec is read from.

    ``labels`` are what Label Studio stores in a result (the alias when set, else the value);
    ``shown`` is what the annotator sees for each of them; ``multiple``: ``choice="multiple"`` (any
    subset of the labels, the multi-label family).
    """

    name: str
    to_name: str
    labels: tuple[str, ...]
    shown: tuple[str, ...]
    multiple: bool = False

    @property
    def choice_mode(self) -> str:
        """The ``choice`` attribute a review config gives this control."""
        return "multiple" if self.multiple else "single"


def find_choice_control(root: ET.Element, *, control: str | None = None) -> ChoiceControl:
    """The ``<Choices>`` control to judge (single or multiple choice), picked by name when there are several."""
    controls = [c for c in root.iter("Choices") if c.get("name")]
    if control is not None:
        controls = [c for c in controls if c.get("name") == control]
        if not controls:
            raise ValueError(f"the label config has no <Choices name={control!r}>")
    if not controls:
        regions = sorted({e.tag for e in root.iter() if e.tag.endswith("Labels")})
        if regions:
            raise ValueError(f"the label config labels regions (<{regions[0]}>): only per-item labels (a <Choices> "
                             "control, single or multiple choice) can be audited")
        raise ValueError("the label config has no <Choices> control: only classification projects can be audited")
    if len(controls) > 1:
        names = ", ".join(c.get("name", "") for c in controls)
        raise ValueError(f"the label config has several <Choices> controls ({names}): name the one to audit")
    elem = controls[0]
    mode = elem.get("choice", "single")
    if mode not in ("single", "single-radio", "multiple"):
        raise ValueError(f"<Choices name={elem.get('name')!r}> has choice={mode!r}: only single, single-radio "
                         "and multiple are supported")
    for attr, why in (("perRegion", "is per region: only per-item labels are supported"),
                      ("allowNested", "allows nested choices: only a flat list of labels is supported"),
                      ("perItem", "is per item of a list: only one answer per task is supported")):
        if elem.get(attr, "false").lower() == "true":
            raise ValueError(f"<Choices name={elem.get('name')!r}> {why}")
    if any(child.tag == "Choice" for choice in elem.iter("Choice") for child in choice):
        raise ValueError(f"<Choices name={elem.get('name')!r}> nests <Choice> inside <Choice>: only a flat list "
                         "of labels is supported")
    shown, labels = [], []
    for choice in elem.iter("Choice"):
        value = choice.get("value")
        if value is None:
            raise ValueError("a <Choice> has no value attribute")
        shown.append(value)
        labels.append(choice.get("alias") or value)
    return ChoiceControl(
        name=elem.get("name", ""), to_name=elem.get("toName", ""), labels=tuple(labels), shown=tuple(shown),
        multiple=mode == "multiple",
    )
