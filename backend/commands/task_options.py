"""One task spec from the command-line options of ``label-audit score``.

A file of labelled items is judged either with a spec (a built-in name or a YAML/TOML file, ``--task``),
or with the generic prompts built from what the user already has: the label names and input fields
(``--labels``, ``--fields``), a Label Studio label config (``--label-config``, the same derivation the
backend applies to a project), and the labelling guidelines (``--guidelines FILE``). Keeping that choice
here means the CLI and the backend cannot drift apart on how a project becomes a spec.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from backend.task.generic import generic_spec
from backend.labelstudio.projectspec import spec_from_label_config
from backend.task.family import family_names
from backend.task.spec import TaskSpec, load_spec
from dataclasses import replace


def split_labels(values: Sequence[str] | None) -> list[str]:
    """``--labels``: one value is a comma-separated list; several values are one label each (commas kept)."""
    values = [v for v in (values or ()) if v is not None]
    if len(values) == 1:
        return [part.strip() for part in values[0].split(",") if part.strip()]
    return [v.strip() for v in values if v.strip()]


def resolve_task(
    *,
    task: str | None = None,
    labels: Sequence[str] | None = None,
    fields: str | None = None,
    guidelines: Path | None = None,
    label_config: Path | None = None,
    family: str | None = None,
    negative_label: str | None = None,
    label_field: str | None = None,
    id_field: str | None = None,
    named_negative: str | None = None,
    option_orders: int | None = None,
    calibration: str | None = None,
    multilabel_orders: int | None = None,
) -> TaskSpec:
    """The spec the options describe; ValueError saying which options are missing or clash.

    ``named_negative``, ``option_orders`` and ``calibration`` are the command's settings
    (``Settings.spec_options()``: ``--option-orders`` over ``LABEL_AUDIT_OPTION_ORDERS``...; None: the defaults),
    applied as the backend applies them to a project: the option orders and calibration to a generic spec
    (:mod:`backend.task.option_orders`; a spec with its own prompts is asked as it is), the named negative
    class to a label config's labels; ``multilabel_orders`` to a multi-label task's yes/no questions.
    """
    if family is not None and family not in family_names():
        raise ValueError(f"--family must be one of {', '.join(family_names())}, got {family!r}")
    text = guidelines.read_text("utf-8") if guidelines is not None else None
    if label_config is not None:
        if labels:
            raise ValueError("--labels comes from --label-config there: give one or the other")
        spec = spec_from_label_config(
            label_config.read_text("utf-8"), name=task, guidelines=text, family=family,
            negative_label=negative_label, label_field=label_field, named_negative=named_negative,
            option_orders=option_orders, calibration=calibration, multilabel_orders=multilabel_orders,
        )
        return _with_id_field(spec, id_field)
    return _resolve(task=task, labels=labels, fields=fields, guidelines=guidelines, text=text, family=family,
                    negative_label=negative_label, label_field=label_field, id_field=id_field,
                    option_orders=option_orders, calibration=calibration, multilabel_orders=multilabel_orders)


def _resolve(*, task: str | None, labels: Sequence[str] | None, fields: str | None, guidelines: Path | None,
             text: str | None, family: str | None, negative_label: str | None, label_field: str | None,
             id_field: str | None, option_orders: int | None, calibration: str | None,
             multilabel_orders: int | None = None) -> TaskSpec:
    label_list = split_labels(labels)
    if label_list:
        field_list = [f.strip() for f in (fields or "").split(",") if f.strip()]
        if not field_list:
            raise ValueError("--labels needs --fields: the data fields holding the item's text (e.g. --fields text)")
        return generic_spec(
            labels=label_list, fields=field_list, family=family, name=task or "generic", guidelines=text or "",
            negative_label=negative_label or "", label_field=label_field or "label", id_field=id_field or "id",
            option_orders=option_orders, calibration=calibration, multilabel_orders=multilabel_orders,
        )
    if task is None:
        raise ValueError("say what the task is: --task NAME|FILE, --labels A,B,C --fields FIELD, or --label-config FILE")
    if guidelines is not None or fields:
        raise ValueError("--guidelines and --fields go with --labels or --label-config (a --task spec has its own prompts)")
    return load_spec(task)


def _with_id_field(spec: TaskSpec, id_field: str | None) -> TaskSpec:
    if not id_field:
        return spec
    return replace(spec, id_field=id_field)
