"""A parsed control and input of a label config: what every layer reads of the XML, once parsed.

They live here, below the task model, so a control type's spec builder (in its family's module) takes the
parsed element without reaching up into the Label Studio layer that parses it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["IMAGE_TAGS", "Condition", "ConfigControl", "InputObject"]

#: Object tags whose ``value="$field"`` shows an image: judged by members that see (backend.images).
IMAGE_TAGS = frozenset({"Image"})


@dataclass(frozen=True)
class Condition:
    """When a conditional control is shown (Label Studio's ``visibleWhen="choice-selected"``).

    ``control`` is the ``whenTagName``; ``values`` the ``whenChoiceValue`` labels (empty: any answer in
    ``control``). A conditional control is judged only on items whose original answer meets it.
    """

    control: str
    values: tuple[str, ...] = ()

    def holds(self, answer: Any) -> bool:
        """Whether an answer of ``control`` (a label, a JSON set of labels, or None) shows the control."""
        if answer is None or answer == "" or answer == "[]":
            return False
        if not self.values:
            return True
        picked = {str(answer)}
        text = str(answer)
        if text.startswith("["):
            try:
                picked = {str(v) for v in json.loads(text)}
            except ValueError:
                pass
        return bool(picked & set(self.values))


@dataclass(frozen=True)
class ConfigControl:
    """One control the judges answer, as the config states it."""

    name: str
    tag: str
    to_name: str
    attrs: tuple[tuple[str, str], ...]
    title: str = ""
    when: Condition | None = None

    def get(self, attr: str, default: str | None = None) -> str | None:
        """An attribute of the control element."""
        return dict(self.attrs).get(attr, default)


@dataclass(frozen=True)
class InputObject:
    """An object tag showing one data field."""

    tag: str
    name: str
    field: str
    attrs: tuple[tuple[str, str], ...]

    @property
    def is_image(self) -> bool:
        """An ``<Image>``: its field holds an image reference, fetched for the judges, never sent as text."""
        return self.tag in IMAGE_TAGS
