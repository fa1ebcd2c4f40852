"""One control's answer in an annotation: the value of its region(s), or why it is no label of the control.

Label Studio stores whatever an annotation is given (an API import, an erased ``<Number>`` saved as 0, an
old annotation from before the config changed): a rating of 6 on five stars, 4.5, ``null``, a pairwise
``"both"``. Such an answer is not *no* answer: :func:`control_answer` raises ValueError with the reason, and the
task becomes that item's counted ``bad_label`` error (:mod:`backend.labelstudio.tasks`), as the same value in a
``score`` file does. With several regions for one control the valid answer wins; two valid answers that
differ are an error too (which one the annotator meant is unknown).

Why by hand: the region shape is Label Studio's (docs/controls.md), and no library reads it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from backend.families.single import _region_dict

__all__ = ["control_answer", "shown_value"]

#: How much of a bad value an error message shows (a value is the annotator's text, of any length).
SHOWN_CHARS = 40


def shown_value(raw: Any) -> str:
    """``repr(raw)`` cut to a few dozen characters (an int of 5000 digits cannot even be printed whole)."""
    try:
        text = repr(raw)
    except ValueError:
        return f"<an {type(raw).__name__} too long to show>"
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def control_answer(result: Sequence[Any] | None, *, control: str, kind: str, key: str,
                   read: Callable[[Any], str | None], labels: Sequence[str]) -> str | None:
    """The label ``control``'s regions of type ``kind`` give (``value[key]`` read by ``read``), None when the
    annotation has no such region; ValueError (the reason) when no region holds a label, or two hold different
    ones. ``read`` returns None for a value that is no label; it may also raise (ValueError, TypeError,
    OverflowError: a number too large for a float), which counts the same."""
    found: list[str] = []
    bad: list[str] = []
    for region in result or ():
        item = _region_dict(region)
        if item.get("from_name") != control or item.get("type") != kind:
            continue
        value = item.get("value")
        raw = value.get(key) if isinstance(value, Mapping) else value
        try:
            label = read(raw) if isinstance(value, Mapping) else None
        except (ValueError, TypeError, OverflowError):
            label = None
        if label is None:
            bad.append(shown_value(raw))
        elif label not in found:
            found.append(label)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ValueError(f"control {control!r} holds {len(found)} different answers in one annotation "
                         f"({', '.join(found)}): which one was meant is unknown")
    if bad:
        scale = f"{labels[0]}..{labels[-1]}" if len(labels) > 4 else ", ".join(labels)
        raise ValueError(f"control {control!r} answers {key}={bad[0]}, which is not one of its labels ({scale})")
    return None
