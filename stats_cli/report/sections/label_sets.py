"""Label sets (multi-label tasks): which labels the ensemble disputes, how the experts agree, errors per label.

A multi-label item is wrong in degrees: one label added or dropped. This section reads each item's set
through its family (:meth:`~backend.task.family.TaskFamily.report_parts`) and reports per label what the
item-level sections cannot: the ensemble's flags per label, expert agreement on sets (exact match,
Hamming, Krippendorff's alpha with the MASI and Jaccard distances) and per label (kappa, positive
agreement), and the labels the original sets added or dropped against gold, with Clopper-Pearson bounds
over the items the experts settled (:mod:`stats_cli.stats.label_sets`).
"""

from __future__ import annotations

from typing import Any

from stats_cli.stats.label_sets import (exact_match_agreement, hamming_agreement, label_errors, per_label_agreement,
                                  set_alpha)

from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "label_sets", "Label sets, per label"


def _set(data: AuditData, value: str | None) -> frozenset[str] | None:
    parts = data.spec.task_family.report_parts(data.spec, value) if value is not None else None
    return None if parts is None else frozenset(k for k, v in parts.items() if v == "yes")


def _flags(data: AuditData) -> tuple[Table, dict[str, Any], int]:
    labels = list(data.spec.labels)
    counts = {lab: {"flagged": 0, "would_add": 0, "would_drop": 0} for lab in labels}
    scored = [it for it in data.scored if it.questions]
    for it in scored:
        for q in it.questions:
            if q.flagged and q.id in counts:
                counts[q.id]["flagged"] += 1
                counts[q.id]["would_add" if q.prediction == "yes" else "would_drop"] += 1
    table = Table.build(f"Flags per label (n = {len(scored)} scored items)",
                        ("label", "flagged", "ensemble adds it", "ensemble drops it"),
                        [(lab, c["flagged"], c["would_add"], c["would_drop"]) for lab, c in counts.items()])
    return table, counts, len(scored)


def _experts(data: AuditData) -> tuple[list[Table], dict[str, Any], int]:
    answers = {}
    for item_id, review in data.reviews.items():
        sets = {e: _set(data, v) for e, v in review.round1.items() if v is not None}
        if len(sets) >= 2:
            answers[item_id] = sets
    if not answers:
        return [], {}, 0
    labels = list(data.spec.labels)
    exact, n_pairs = exact_match_agreement(answers)
    hamming, _ = hamming_agreement(answers, labels)
    values = {"exact_match": exact, "hamming": hamming, "alpha_masi": set_alpha(answers, distance="masi"),
              "alpha_jaccard": set_alpha(answers, distance="jaccard"), "pairs": n_pairs,
              "per_label": per_label_agreement(answers, labels)}
    sets_table = Table.build(f"Expert agreement on sets, round 1 (n = {len(answers)} items, {n_pairs} expert pairs)",
                             ("exact match", "Hamming agreement", "alpha (MASI)", "alpha (Jaccard)"),
                             [(exact, hamming, values["alpha_masi"], values["alpha_jaccard"])])
    per_label = Table.build("Expert agreement per label, round 1 (does the label apply?)",
                            ("label", "items", "kappa", "positive agreement", "% agreement"),
                            [(lab, v["n_items"], v["kappa"], v["positive_agreement"], percent(v["pct_agreement"]))
                             for lab, v in values["per_label"].items()])
    return [sets_table, per_label], values, len(answers)


def _errors(data: AuditData) -> tuple[list[Table], list[dict[str, Any]], int]:
    pairs = [(_set(data, it.original), _set(data, gold)) for it, gold in data.reviewed() if it.original is not None]
    pairs = [(o, g) for o, g in pairs if o is not None and g is not None]
    if not pairs:
        return [], [], 0
    rows = label_errors(pairs, list(data.spec.labels))
    table = Table.build(f"Original vs gold per label over the items the experts settled (n = {len(pairs)}; "
                        "95% Clopper-Pearson, in %)",
                        ("label", "reviewed", "added by gold", "dropped by gold", "% wrong", "CP low (%)",
                         "CP high (%)"),
                        [(r.label, r.reviewed, r.added, r.dropped, *map(percent, (r.rate, r.cp_low, r.cp_high)))
                         for r in rows])
    return [table], [r.to_json() for r in rows], len(pairs)


def label_sets_section(data: AuditData) -> Section:
    """The per-label view of a multi-label audit (NOT APPLICABLE for single-label tasks)."""
    if not data.spec.task_family.multi_valued:
        return LabelSetsSection.not_applicable("one label per item: the item-level sections say it all")
    flags, counts, n_scored = _flags(data)
    expert_tables, agreement, n_pairable = _experts(data)
    error_tables, errors, n_reviewed = _errors(data)
    notes = []
    if not expert_tables:
        notes.append("Expert agreement: PENDING - no item has answers from two experts yet.")
    if not error_tables:
        notes.append("Errors per label: PENDING - no item is settled by the experts yet.")
    else:
        notes.append("Errors per label rest on the reviewed items only (flagged ones, plus any sampled controls): "
                     "they say how the disputed sets were wrong, not the project's error rate (see Label errors).")
    values = {"flags": counts, "agreement": agreement or None, "errors": errors or None}
    sizes = {"scored": n_scored, "items with two expert answers": n_pairable, "settled by experts": n_reviewed}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(flags, *expert_tables, *error_tables),
                   notes=tuple(notes), values=values)


class LabelSetsSection(ReportSection):
    key, title, order = KEY, TITLE, 36
    needs = ("set",)
    lacking = "one label per item: the item-level sections say it all"

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return label_sets_section(data)
