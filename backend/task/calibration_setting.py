"""The calibration mode of a task: which one, carried in the spec, and checked from the setting.

The setting (``LABEL_AUDIT_CALIBRATION``) is read by :class:`backend.config.settings.Settings` at an edge and
passed down to the spec's derivation; a spec derived without it gets the default.

It sits in the task layer (beside :mod:`backend.task.option_orders`) so that building a spec needs nothing of
the scoring engine; the arithmetic and the content-free calls are :mod:`backend.scoring.contextual_calibration`.
"""

from __future__ import annotations

from dataclasses import replace

from backend.common.defaults import CALIBRATION
from backend.task.spec import TaskSpec

__all__ = ["CALIBRATION_ENV", "EXTRA_KEY", "MODES", "calibration_of", "check_mode", "resolve_calibration",
           "with_calibration"]

CALIBRATION_ENV = "LABEL_AUDIT_CALIBRATION"
#: Key under which the spec carries its calibration mode.
EXTRA_KEY = "calibration"
#: ``none``: answers as the judge gave them; ``content-free``: divided by the judge's content-free prior.
MODES = ("none", "content-free")


def check_mode(value: object) -> str:
    """``value`` as one of :data:`MODES` (``on``/``off`` and booleans accepted); ValueError otherwise."""
    text = str(value).strip().lower()
    text = {"true": "content-free", "on": "content-free", "1": "content-free", "false": "none", "off": "none",
            "0": "none", "": "none"}.get(text, text)
    if text not in MODES:
        raise ValueError(f"{CALIBRATION_ENV} / calibration must be one of {', '.join(MODES)}, got {value!r}")
    return text


def resolve_calibration(value: str | None = None) -> str:
    """The calibration mode: ``value`` (the settings' ``calibration``, resolved at an edge), else the default."""
    return check_mode(CALIBRATION if value is None else value)


def calibration_of(spec: TaskSpec) -> str:
    """The spec's mode: ``content-free`` only for lettered options asked of text (an image has no empty form)."""
    if not spec.answer_tokens or spec.image_fields:
        return "none"
    return check_mode(spec.extra.get(EXTRA_KEY, "none"))


def with_calibration(spec: TaskSpec, mode: str) -> TaskSpec:
    """``spec`` with its answers calibrated by ``mode``."""
    return replace(spec, extra={**spec.extra, EXTRA_KEY: check_mode(mode)})
