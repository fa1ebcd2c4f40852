"""The control registry: every control type, keyed by tag, found in this folder's modules.

A module of :mod:`backend.controls` that declares ``CONTROL_TYPES`` (a tuple of
:class:`~backend.controls.control_type.ControlType`) is registered; nothing else lists it, so a new control
tag is its module here plus the family (and spec builder) it names. The views below replace the five
registries that each listed tags before (family modules, result kinds, audited tags and skip reasons, the
spec dispatch, the expert view's attributes).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Any, Callable, Mapping

from backend.controls.control_type import PER_ITEM, REGIONS, SKIPPED, ControlType

__all__ = ["REGION_REASON", "audited_tags", "control_type", "control_types", "family_modules", "input_tags",
           "render_attrs", "result_kinds", "skip_reason", "spec_builder"]

#: Modules of this folder that declare no control type.
_INFRASTRUCTURE = frozenset({"control_type", "element", "parse", "registry"})
#: Why a control that marks regions is left out of a per-item audit.
REGION_REASON = ("marks regions of the input (spans, boxes, polygons, audio segments): audit it on its own as a "
                 "span project")
#: Why a control of a tag no module declares is skipped.
UNKNOWN_REASON = "not a per-item choice among options"


@lru_cache(maxsize=1)
def control_types() -> Mapping[str, ControlType]:
    """Tag -> its control type, every module of the folder, in the types' declared order."""
    package = importlib.import_module("backend.controls")
    found: list[ControlType] = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in _INFRASTRUCTURE:
            continue
        module = importlib.import_module(f"backend.controls.{info.name}")
        found += list(getattr(module, "CONTROL_TYPES", ()))
    types: dict[str, ControlType] = {}
    for ctype in sorted(found, key=lambda t: (t.order, t.tag)):
        if ctype.tag in types:
            raise ValueError(f"control tag <{ctype.tag}> is declared twice")
        types[ctype.tag] = ctype
    return types


def control_type(tag: str) -> ControlType | None:
    """The control type of ``tag`` (None: no module declares it)."""
    return control_types().get(tag)


def audited_tags() -> tuple[str, ...]:
    """Tags audited one answer per item (several may share a project)."""
    return tuple(tag for tag, t in control_types().items() if t.audit == PER_ITEM)


def result_kinds() -> tuple[str, ...]:
    """Label Studio result types of the per-item controls (a :class:`~backend.task.spec.ChoiceBinding`'s kind)."""
    return tuple(dict.fromkeys(t.result_type for t in control_types().values() if t.audit == PER_ITEM))


def family_modules() -> dict[str, str]:
    """Family name -> the module registering it, for every family a control type names."""
    out: dict[str, str] = {}
    for ctype in control_types().values():
        out.update(ctype.families)
    return out


def input_tags() -> frozenset[str]:
    """Object tags the control types bring as item inputs besides text and images."""
    return frozenset(tag for t in control_types().values() for tag in t.input_tags)


def skip_reason(tag: str) -> str:
    """Why a control of ``tag`` is left out of a per-item audit ("" for an audited one)."""
    ctype = control_type(tag)
    if ctype is not None and ctype.audit == PER_ITEM:
        return ""
    if (ctype is not None and ctype.audit == REGIONS) or tag.endswith("Labels"):
        return REGION_REASON
    return ctype.skip_reason if ctype is not None and ctype.audit == SKIPPED else UNKNOWN_REASON


def render_attrs(tag: str) -> tuple[str, ...]:
    """The attributes the blind expert view keeps of a control of ``tag`` (ValueError: not reviewed)."""
    ctype = control_type(tag)
    if ctype is None or ctype.audit != PER_ITEM:
        raise ValueError(f"<{tag}> is not a control an expert answers")
    return ctype.render_attrs


def spec_builder(tag: str) -> Callable[..., Any]:
    """The function building a ``<tag>`` control's spec from its parsed element; ValueError when no control type
    of that tag builds its own (an unknown tag is never read as another's)."""
    ctype = control_type(tag)
    if ctype is None or not ctype.spec_builder:
        raise ValueError(f"<{tag}>: no control type builds its spec from the element")
    module, _, name = ctype.spec_builder.partition(":")
    return getattr(importlib.import_module(module), name)
