"""What one kind of Label Studio control is to this tool, declared once per tag (:mod:`backend.controls`).

Before this record, a control tag's facts were spread over five registries in three layers (the family
modules, the result kinds, the audited tags and skip reasons, the spec dispatch, the expert view's
attributes); each is now a view of the registry (:mod:`backend.controls.registry`). A record holds data
and dotted names only: the code it names (a family, a spec builder) sits in higher layers and is imported
on first use, so this folder stays below every layer that reads it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from backend.controls.element import InputObject

__all__ = ["ControlType", "PER_ITEM", "REGIONS", "SKIPPED", "SpecContext"]

#: How a control is audited: one answer per item (with others in one project), regions of the input (a span
#: project of its own), or not at all (``skip_reason`` says why).
PER_ITEM, REGIONS, SKIPPED = "per_item", "regions", "skipped"


@dataclass(frozen=True)
class ControlType:
    """One control tag: how it is read, judged, reviewed and reported.

    ``families`` maps each family a control of this tag can be judged as to the module that registers it
    (``<Choices>``: binary, ordinal, nominal, multi-label); ``spec_builder`` is ``"module:function"`` building a
    control's spec from its parsed element (:class:`backend.controls.element.ConfigControl`), called as
    ``build(ctrl, ctx)`` with the project's :class:`SpecContext`; "" when no per-item spec is built from the
    element (``<Labels>``: a span project, :mod:`backend.spans.config`). ``render_attrs``: the attributes the
    blind expert view keeps (everything else, such as a ``defaultValue``, could pre-select an answer);
    ``review_ask`` what the expert's title adds; ``required`` whether the expert must answer it (a click on a
    response is the answer of a ``<Pairwise>``).
    """

    tag: str
    #: Where the tag comes in the registry's listings (family names, audited tags): lower first.
    order: int = 100
    audit: str = PER_ITEM
    result_type: str = ""
    families: Mapping[str, str] = field(default_factory=dict)
    spec_builder: str = ""
    render_attrs: tuple[str, ...] = ()
    review_ask: str = ""
    required: bool = True
    #: The objects of ``toName`` are responses the expert compares: the review shows them as "Response 1",
    #: "Response 2"... under neutral data keys (their own titles or fields, such as ``chosen``, could name
    #: the original answer).
    compares_objects: bool = False
    #: Audited only as the project's one control (a control whose questions are asked pair by pair of its
    #: objects cannot share a project's questions): beside others it is refused with ``alone_reason``.
    alone_reason: str = ""
    #: Object tags this control brings as item inputs besides text and images (a ``<Ranker>``'s ``<List>``).
    input_tags: tuple[str, ...] = ()
    skip_reason: str = ""

    def __post_init__(self) -> None:
        if self.audit not in (PER_ITEM, REGIONS, SKIPPED):
            raise ValueError(f"<{self.tag}>: audit is {PER_ITEM}, {REGIONS} or {SKIPPED}, got {self.audit!r}")
        if self.audit == SKIPPED and not self.skip_reason:
            raise ValueError(f"<{self.tag}> is skipped: say why (skip_reason)")
        if self.audit == PER_ITEM and not (self.result_type and self.families):
            raise ValueError(f"<{self.tag}> is audited per item: it needs a result type and a family")


@dataclass(frozen=True)
class SpecContext:
    """What a control's spec builder is given besides its element: the parsed config and the project's words.

    One record for every builder, so the project's spec derivation (:mod:`backend.labelstudio.projectspec`)
    calls each control type alike; a builder reads what its control needs and leaves the rest. ``root``: the
    parsed config (a ``<Ranker>``'s buckets, a ``<Choices>``' hints); ``name``: the spec's name (``labelstudio``
    unless the project named its own); ``asked``: the name as asked (None, ``auto`` or a built-in spec's name:
    the built-in specs a ``<Choices>`` may match); ``titles`` and ``question``: the config's ``<Header>`` texts
    naming the inputs and this control. ``family``, ``negative_label``: a one-control project's overrides;
    ``named_negative``: the "nothing here" class of the settings, where the control's labels hold it;
    ``multilabel_orders``: the settings' orders of a multi-label control's yes/no options.
    """

    root: ET.Element
    inputs: Sequence[InputObject]
    name: str
    asked: str | None
    guidelines: str
    label_field: str
    option_orders: int
    calibration: str
    titles: Mapping[str, str] = field(default_factory=dict)
    question: str = ""
    family: str | None = None
    negative_label: str | None = None
    named_negative: str | None = None
    #: In how many orders a multi-label ``<Choices>`` asks its yes/no questions (:mod:`backend.task.multilabel_orders`).
    multilabel_orders: int = 1
