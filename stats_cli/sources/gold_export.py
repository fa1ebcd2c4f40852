"""Gold labels out: to a file (JSONL/CSV) and, on request, into Label Studio as ground truth.

Modes for the file (Nahum §7.1): ``correct`` writes the gold label where one is settled and the
original elsewhere; ``flip`` and ``filter`` build training sets by flipping or dropping items the
ensemble flagged above a confidence threshold *that no expert reviewed* (expert decisions always win).
Writing to Label Studio adds one annotation per expert-settled task, by a dedicated "gold" user and
marked as ours (not as Label Studio's ground truth, which would unmark the original), and never edits or
deletes anybody else's annotation; re-running updates that one annotation instead of adding another.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping

from backend.api import atomic_write, parse_label_config
from backend.api import safe_row
from backend.api import resolve_threshold
from backend.api import ensure_user, organization_id

from backend.api import GOLD_USER_EMAIL, is_gold_annotation, mark_gold
from backend.api import field, live_annotations
from backend.api import GoldStatus
from stats_cli.sources.audit_data import AuditData

Mode = Literal["correct", "flip", "filter"]
MODES = ("correct", "flip", "filter")
#: The gold file's ``source`` column: where an item's gold label came from, or why it has none.
SOURCE_TEXT = {
    GoldStatus.AGREED_WITH_ENSEMBLE: "ensemble agrees with original",
    GoldStatus.EXPERTS_AGREE: "experts",
    GoldStatus.RECONCILED: "experts",
    GoldStatus.PENDING: "pending review",
    GoldStatus.SPLIT_UNRESOLVED: "experts still disagree",
    GoldStatus.EXPERTS_AMBIGUOUS: "experts: more than one answer may be right",
    GoldStatus.NOT_REVIEWED: "not reviewed",
    GoldStatus.NOT_SCORED: "no ensemble verdict",
}
COLUMNS = ("id", "original", "gold", "source", "label", "action", "prediction", "confidence", "flagged")


@dataclass(frozen=True)
class GoldRow:
    """One item of the gold file; ``label`` is what a training set should use (``action`` says why)."""

    id: str
    original: str | None
    gold: str | None
    source: str
    label: str | None
    action: str  # kept | corrected | flipped | dropped | no label
    prediction: str | None
    confidence: float | None
    flagged: bool


def _answer(result: Iterable[Any], controls: Iterable[str]) -> list[tuple[str, Any]]:
    """What a result says for the audited ``controls`` (each region's control and value, in a stable order),
    to tell an unchanged gold annotation."""
    wanted = set(controls)
    found = [(str(field(r, "from_name")), field(r, "value")) for r in result if field(r, "from_name") in wanted]
    return sorted(found, key=lambda pair: (pair[0], json.dumps(pair[1], sort_keys=True, default=str)))


def audited_controls(spec: Any) -> list[tuple[str, Any]]:
    """``(control name, its own spec)`` of every audited control: each control of a composite, else the one."""
    subs = getattr(spec, "controls", ())
    if subs:
        return [(c.name, c.spec) for c in subs]
    binding = spec.binding
    if binding is None or not binding.from_name or not binding.to_name:
        raise ValueError("the project's spec does not name its control in Label Studio")
    return [(binding.from_name, spec)]


def gold_rows(data: AuditData, *, mode: Mode = "correct", threshold: float | None = None) -> list[GoldRow]:
    """One row per audited item, dropped ones included (``action="dropped"``) so nothing vanishes silently.

    Parameters
    ----------
    mode : {"correct", "flip", "filter"}
        What to do with flagged items nobody reviewed (only ``flip``/``filter`` touch them).
    threshold : float, optional
        Confidence at or above which an unreviewed flagged item is flipped or dropped; default the
        project's flag threshold (0.55 binary, 0.45 nominal, 0.2 ordinal).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    cut = resolve_threshold(data.spec, threshold if threshold is not None else data.threshold)
    rows = []
    for it in data.items:
        gold, status = data.gold(it)
        label, action = it.original, "kept"
        if gold is not None and status.by_experts:
            label, action = gold, "corrected" if gold != it.original else "kept"
        elif (mode != "correct" and str(it.id) not in data.reviews  # an expert looked at it: not ours to flip
              and it.flagged and it.prediction is not None and (it.confidence or 0.0) >= cut):
            label, action = (data.spec.task_family.flipped(data.spec, it, cut), "flipped") if mode == "flip" \
                else (None, "dropped")
        if label is None and action != "dropped":
            action = "no label"
        rows.append(GoldRow(str(it.id), it.original, gold, SOURCE_TEXT[status], label, action, it.prediction,
                            it.confidence, bool(it.flagged)))
    return rows


def write_gold_file(rows: Iterable[GoldRow], path: str | Path, *, spec: Any = None) -> int:
    """Write ``.jsonl`` or ``.csv`` (by suffix); dropped rows are left out of the file. Returns rows written.

    CSV cells that a spreadsheet would run as a formula get a leading ``'`` (:mod:`backend.common.csv_cells`);
    the previous file is replaced only once the new one is complete (:mod:`backend.common.atomic_write`).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson", ".json"):
        raise ValueError(f"gold file must end in .jsonl or .csv, not {path.name!r}")
    kept = [r for r in rows if r.action != "dropped"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".csv":
        with atomic_write(path, newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            writer.writerows(safe_row(asdict(r)[c] for c in COLUMNS) for r in kept)
    else:
        with atomic_write(path) as handle:
            for r in kept:
                handle.write(json.dumps(_exported(asdict(r), spec), ensure_ascii=False) + "\n")
    return len(kept)


def _exported(row: dict[str, Any], spec: Any) -> dict[str, Any]:
    """A JSONL row with its label values as the family exports them (multi-label: a list of labels)."""
    if spec is None:
        return row
    for key in ("original", "gold", "label", "prediction"):
        if row[key] is not None:
            row[key] = spec.task_family.export(spec, row[key])
    return row


def choice_values(label_config: str, *, control: str) -> dict[str, str]:
    """Label (alias or value) -> the ``value`` Label Studio stores for that ``<Choice>``."""
    root = parse_label_config(label_config)  # defusedxml: a config from Label Studio is untrusted input
    out = {}
    for elem in root.iter("Choices"):
        if elem.get("name") == control:
            for choice in elem.iter("Choice"):
                value = choice.get("value")
                if value is not None:
                    out[choice.get("alias") or value] = value
    return out


@dataclass
class SyncCounts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0


def _gold_annotations(tasks: Iterable[Mapping[str, Any]], gold_user: int) -> dict[str, Mapping[str, Any]]:
    """The gold annotation of ours on each task: by the gold user *and* marked (never anybody else's)."""
    out = {}
    for task in tasks:
        for ann in live_annotations(task):
            if is_gold_annotation(ann, gold_user):
                out[str(field(task, "id"))] = ann
    return out


def sync_to_labelstudio(client: Any, data: AuditData, tasks: list[Mapping[str, Any]], *,
                        label_config: str, include_agreed: bool = False) -> SyncCounts:
    """Write each settled gold label as a marked annotation by the gold user (idempotent).

    Every audited control's gold value goes into the one annotation (a composite: one region per control
    with a value); it is unchanged when every control's value is.

    Only expert-settled items by default (the decisions the review produced); ``include_agreed``
    also writes items whose gold is the original because the ensemble agreed. The annotation is not
    Label Studio's ground truth (that would unmark the original): see :mod:`backend.labelstudio.gold_marks`.
    """
    controls = [name for name, _spec in audited_controls(data.spec)]
    family = data.spec.task_family
    values = {name: choice_values(label_config, control=name) for name in controls}
    gold_user = ensure_user(client, GOLD_USER_EMAIL, org_id=organization_id(client))
    existing = _gold_annotations(tasks, gold_user)
    counts = SyncCounts()
    for it in data.items:
        gold, status = data.gold(it)
        if gold is None or (not status.by_experts and not include_agreed):
            continue
        result = mark_gold(family.write_result(data.spec, gold), stored=values)
        old = existing.get(str(it.id))
        if old is None:
            client.annotations.create(id=int(it.id), result=result, completed_by=gold_user, ground_truth=False)
            counts.created += 1
        elif _answer(old.get("result") or [], controls) == _answer(result, controls):
            counts.unchanged += 1
        else:
            client.annotations.update(id=int(old["id"]), result=result)
            counts.updated += 1
    return counts
