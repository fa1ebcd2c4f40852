"""What an expert answers when an item has several audited controls, or a ``<Rating>``, ``<Number>``, ``<Pairwise>``.

The expert sees the item once with EVERY audited control: showing only the flagged dimension would tell
them which answer is suspect. Nothing is pre-selected (a ``selected`` choice, a ``defaultValue`` of a
rating or number), and the source's own headers and instructions are not copied.

Each control gets a neutral title made from its name (``relevance`` -> "Relevance"), not the header that
introduced it in the source config. Why: a header is free text written to steer annotators ("most
summaries are fluent: rate 5 unless...", "if you chose Relevant above...") and can carry a prior on the
answer or another dimension's state, while the name is an identifier that cannot hold a sentence. It is
also the key the expert's answer, the gold label, the report's section and ``sync-gold`` are stored under,
so the expert, the report and the gold file name a dimension alike. What a value means comes from static
sources only: a choice's ``hint`` or alias, and the project's guidelines once checked
(:func:`backend.labelstudio.expertview.check_guidelines`).

A control shown only under a condition (``visibleWhen="choice-selected"``) keeps its condition on the
expert's OWN answer in round 1 (the source's condition, on the review task's controls); the condition is
dropped when its control is not audited (the item was judged because the original met it). Round 2
shows every control, each with the experts' round-1 answers, and drops the conditions: an agreed
condition control is not answered again in round 2, so a conditional control under it would stay hidden.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from typing import Collection, Mapping, Sequence

from backend.labelstudio.expertview import (
    append_choices,
    append_inputs,
    choice_meanings,
    expert_label_config,
    field_title,
    shown_inputs,
)
from backend.controls.registry import audited_tags, control_type, render_attrs
from backend.controls.parse import config_root
from backend.controls.choices import find_choice_control
from backend.labelstudio.labelconfig import find_inputs

#: Control tags an expert answers, and the attributes of each that only say how to render or bound it
#: (kept; ``<Choices>`` keeps its ``<Choice>`` children instead). Everything else (``defaultValue``,
#: ``hotkey``, ``perRegion``, conditions...) is dropped. A view of the control registry (:mod:`backend.controls`).
RENDER_ATTRS: dict[str, tuple[str, ...]] = {tag: render_attrs(tag) for tag in audited_tags() if tag != "Choices"}
CONTROL_TAGS = audited_tags()
#: The one condition on an answer that the audit follows (as the spec does, backend.labelstudio.controls_config).
CONDITION_KINDS = ("choice-selected",)
ROUND1_PREFIX = "round1_"


def round1_field(control: str) -> str:
    """Data field of a round-2 task holding the experts' round-1 answers on ``control``."""
    return ROUND1_PREFIX + re.sub(r"\W", "_", control)


def round1_fields(controls: Sequence[str], *, taken: Collection[str] = ()) -> dict[str, str]:
    """Control -> the data field of a round-2 task holding the experts' round-1 answers on it; never two alike.

    The readable field (:func:`round1_field`) folds every non-word character into ``_``, so ``a-b`` and
    ``a_b`` both read ``round1_a_b``: one task field and one ``<Text>`` name for two controls, one
    control's answers shown under the other. A control whose name needed no folding keeps its readable
    field (a project reviewed before keeps its fields); any other control whose field is already used (by
    a control or a ``taken`` name: the config's inputs) gets a suffix from its name's SHA-256, as long as
    it takes to be unique (control names are distinct, so their hashes are).
    """
    readable = {name: round1_field(name) for name in controls}
    used = set(taken)
    fields: dict[str, str] = {}
    for name in sorted(controls, key=lambda c: readable[c] != ROUND1_PREFIX + c):  # unfolded names first
        field, digest, width = readable[name], hashlib.sha256(name.encode()).hexdigest(), 8
        while field in used:
            field, width = f"{readable[name]}_{digest[:width]}", width + 1
        used.add(field)
        fields[name] = field
    return {name: fields[name] for name in controls}


def control_title(name: str, tag: str) -> str:
    """The neutral title of a control: its name made readable (module docstring: why not its header)."""
    title, ctype = field_title(name), control_type(tag)
    return f"{title} ({ctype.review_ask})" if ctype is not None and ctype.review_ask else title


def response_titles(elems: Sequence[ET.Element]) -> dict[str, str]:
    """Input name -> "Response 1" / "Response 2" for the two objects a ``<Pairwise>`` compares (a control type
    whose ``compares_objects`` is set).

    Their own titles or field names (``chosen`` / ``rejected``) can name the original preference.
    """
    out: dict[str, str] = {}
    for elem in elems:
        ctype = control_type(elem.tag)
        if ctype is not None and ctype.compares_objects:
            names = [n.strip() for n in (elem.get("toName") or "").split(",") if n.strip()]
            out.update({name: f"Response {i}" for i, name in enumerate(names[:2], start=1)})
    return out


def response_fields(root: ET.Element, elems: Sequence[ET.Element]) -> dict[str, str]:
    """Source field -> ``response_1`` / ``response_2`` for the two inputs a ``<Pairwise>`` compares.

    A review task's data keys show as the expert's Data Manager columns, and a preference set's fields are
    often named for the original answer (Anthropic HH: ``chosen`` / ``rejected``), so the review task
    carries them under neutral keys (:meth:`backend.review.source.SourceProject.review_fields`).
    """
    fields = {o.name: o.field for o in find_inputs(root)}
    out: dict[str, str] = {}
    for name, title in response_titles(elems).items():
        if name in fields:
            out[fields[name]] = title.lower().replace(" ", "_")
    return out


def review_fields(source_xml: str | ET.Element, *, controls: Sequence[str]) -> dict[str, str]:
    """Source field -> the data key a review task holds it under, for the fields that are renamed (``source_xml``:
    the config or its tree already parsed)."""
    root = config_root(source_xml)
    return response_fields(root, find_controls(root, controls))


def find_controls(root: ET.Element, names: Sequence[str]) -> list[ET.Element]:
    """The named control elements, in the order given (ValueError for a missing or unsupported one)."""
    by_name = {e.get("name"): e for e in root.iter() if e.tag in CONTROL_TAGS and e.get("name")}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ValueError(f"the label config has no control named {', '.join(map(repr, missing))}")
    return [by_name[n] for n in names]


def condition_of(root: ET.Element, elem: ET.Element) -> dict[str, str]:
    """The answer condition under which ``elem`` shows: its own ``visibleWhen``, else its nearest enclosing
    ``<View>``'s; {} when it always shows or its condition is not on an answer."""
    parents = {child: parent for parent in root.iter() for child in parent}
    node: ET.Element | None = elem
    while node is not None:
        if node.get("visibleWhen"):
            if node.get("visibleWhen") not in CONDITION_KINDS or not node.get("whenTagName"):
                return {}
            return {k: node.get(k, "") for k in ("visibleWhen", "whenTagName", "whenChoiceValue") if node.get(k)}
        node = parents.get(node)
    return {}


def _to_name(elem: ET.Element, shown: set[str], fallback: str) -> str:
    """The control's ``toName`` when every object it names is shown, else the last shown input."""
    names = [n.strip() for n in (elem.get("toName") or "").split(",") if n.strip()]
    return elem.get("toName", "") if names and all(n in shown for n in names) else fallback


def _append_control(block: ET.Element, root: ET.Element, elem: ET.Element, *, to_name: str, required: bool,
                    guidelines_html: str) -> None:
    name = elem.get("name", "")
    if elem.tag == "Choices":
        meanings = choice_meanings(root, control=name, guidelines_html=guidelines_html)
        append_choices(block, find_choice_control(root, control=name), to_name=to_name, meanings=meanings,
                       required=required)
        return
    attrs = {"name": name, "toName": to_name}
    attrs.update({k: elem.get(k, "") for k in RENDER_ATTRS[elem.tag] if elem.get(k) is not None})
    ctype = control_type(elem.tag)
    if required and (ctype is None or ctype.required):
        attrs["required"] = "true"
    ET.SubElement(block, elem.tag, attrs)


def expert_controls_config(
    source_xml: str | ET.Element,
    *,
    controls: Sequence[str],
    exclude_fields: Sequence[str],
    guidelines_html: str = "",
    round1: Mapping[str, str] | None = None,
) -> str:
    """The review config of an item with ``controls`` (names, in the project's order).

    One ``<Choices>`` control keeps the single-control view
    (:func:`backend.labelstudio.expertview.expert_label_config`). Otherwise each input under its static
    title, then per control a block: its neutral title, in round 2 the experts' round-1 answers on it
    (``round1``: control -> data field, :func:`round1_fields`), and the control with nothing selected.
    """
    if not controls:
        raise ValueError("no control to review")
    root = config_root(source_xml)  # the tree when the caller holds it (parsed once)
    elems = find_controls(root, controls)
    if len(elems) == 1 and elems[0].tag == "Choices" and not round1:
        return expert_label_config(root, control=controls[0], exclude_fields=exclude_fields,
                                   guidelines_html=guidelines_html)
    inputs = shown_inputs(root, exclude_fields)
    view = ET.Element("View")
    renamed = response_fields(root, elems)
    append_inputs(view, root, inputs, titles_only=True, neutral=response_titles(elems),
                  renamed=renamed)  # no instruction sentence of the source is copied
    shown = {o.name for o in inputs}
    audited = set(controls)
    for elem in elems:
        condition = {} if round1 else condition_of(root, elem)
        if condition.get("whenTagName") not in audited:
            condition = {}
        block = ET.SubElement(view, "View", condition)
        ET.SubElement(block, "Header", {"value": control_title(elem.get("name", ""), elem.tag), "size": "5"})
        if round1:
            ET.SubElement(block, "Text", {"name": round1[elem.get("name", "")],
                                          "value": f"${round1[elem.get('name', '')]}"})
        _append_control(block, root, elem, to_name=_to_name(elem, shown, inputs[-1].name),
                        required=not condition and not round1, guidelines_html=guidelines_html)
    _rename_objects(view, {o.name: renamed[o.field] for o in inputs if o.field in renamed})
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")


def _rename_objects(view: ET.Element, names: Mapping[str, str]) -> None:
    """Give renamed inputs their neutral key as object name too (the config is readable in the project's
    settings), and point every control's ``toName`` at the new names."""
    if not names:
        return
    for elem in view.iter():
        if elem.get("toName"):
            elem.set("toName", ",".join(names.get(n.strip(), n.strip()) for n in elem.get("toName", "").split(",")))
        elif elem.get("name") in names and (elem.get("value") or "").startswith("$"):
            elem.set("name", names[elem.get("name", "")])
