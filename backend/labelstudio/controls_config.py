"""The controls of a label config: which ones a judge can answer, and why the others are skipped.

A project is a list of controls (every element with a ``name`` and a ``toName``). The per-item controls
whose answer is one of a few options are audited (the per-item control types of :mod:`backend.controls`:
``<Choices>``, ``<Rating>``, ``<Number>`` over a small integer scale, ``<Pairwise>``). Every other control is
listed with the reason its control type gives (free text, regions, a taxonomy tree...), and the rest of the
project proceeds. Read once per config
(:func:`list_controls`); :mod:`backend.labelstudio.projectspec` turns the result into the task spec.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from backend.controls.element import Condition, ConfigControl
from backend.controls.registry import audited_tags, skip_reason

__all__ = ["AUDITED_TAGS", "ConfigControl", "SkippedControl", "list_controls", "select_controls"]

#: Control tags a judge can answer, each with one answer per item: a view of the control registry.
AUDITED_TAGS = audited_tags()


@dataclass(frozen=True)
class SkippedControl:
    """A control left out of the audit, and why (printed by the commands that read the config)."""

    name: str
    tag: str
    reason: str

    def describe(self) -> str:
        return f"<{self.tag} name={self.name!r}> skipped: {self.reason}"


def _condition(elem: ET.Element, parents: list[ET.Element]) -> tuple[Condition | None, str | None]:
    """The control's ``visibleWhen`` (its own or an enclosing ``<View>``'s), or why it cannot be followed."""
    for node in [elem, *reversed(parents)]:
        kind = node.get("visibleWhen")
        if not kind:
            continue
        if kind != "choice-selected" or not node.get("whenTagName"):
            return None, (f"shown only when {kind!r}: only controls shown when a choice is selected "
                          "(visibleWhen=\"choice-selected\" whenTagName=...) are followed")
        values = tuple(v.strip() for v in (node.get("whenChoiceValue") or "").split(",") if v.strip())
        return Condition(control=str(node.get("whenTagName")), values=values), None
    return None, None


def _walk(root: ET.Element):
    """Every element in document order with its ancestors."""
    stack: list[tuple[ET.Element, list[ET.Element]]] = [(root, [])]
    while stack:
        elem, parents = stack.pop()
        yield elem, parents
        for child in reversed(list(elem)):
            stack.append((child, [*parents, elem]))


def list_controls(root: ET.Element) -> tuple[list[ConfigControl], list[SkippedControl]]:
    """``(controls a judge can answer, skipped controls with their reasons)``, in document order.

    A control's title is the last static ``<Header>`` before it (LS's templates introduce each dimension
    with one), else empty.
    """
    audited: list[ConfigControl] = []
    skipped: list[SkippedControl] = []
    pending = ""
    for elem, parents in _walk(root):
        value = (elem.get("value") or elem.text or "").strip()  # <Header value="..."/> or <Header>...</Header>
        if elem.tag == "Header" and value and not value.startswith("$"):
            pending = value
            continue
        name, to_name = elem.get("name"), elem.get("toName")
        if not name or to_name is None:
            continue
        if elem.tag not in AUDITED_TAGS:
            skipped.append(SkippedControl(name, elem.tag, skip_reason(elem.tag)))
            continue
        when, why = _condition(elem, parents)
        if why:
            pending = ""
            skipped.append(SkippedControl(name, elem.tag, why))
            continue
        title, pending = pending.rstrip(":").strip(), ""  # a header introduces the one control after it
        audited.append(ConfigControl(name=name, tag=elem.tag, to_name=to_name, attrs=tuple(elem.attrib.items()),
                                     title=title, when=when))
    return audited, skipped


def select_controls(controls: list[ConfigControl], wanted: str | None) -> list[ConfigControl]:
    """The controls named in ``wanted`` (comma-separated; None: all), in config order; ValueError for a name
    the config does not audit."""
    if wanted is None or not wanted.strip():
        return controls
    names = [n.strip() for n in wanted.split(",") if n.strip()]
    known = {c.name for c in controls}
    missing = [n for n in names if n not in known]
    if missing:
        raise ValueError(f"the label config has no control a judge can answer named {', '.join(map(repr, missing))} "
                         f"(auditable: {', '.join(sorted(known)) or 'none'})")
    return [c for c in controls if c.name in names]
