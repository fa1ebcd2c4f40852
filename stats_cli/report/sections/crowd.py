"""Crowd annotations (Nahum App. B) and stratification by annotator certainty p_d (Elangovan et al.).

Only for sources with several original annotations per task. Majority and strict aggregation are
H3's :func:`stats_cli.aggregate.aggregate`; this module compares them with the gold labels.
"""

from __future__ import annotations

from sklearn.metrics import f1_score

from stats_cli.aggregate import aggregate

from ..agreement import AGREEMENT_COLUMNS, paradox_note, rater_agreement, ratings_table
from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable

KEY, TITLE = "crowd", "Crowd annotations"


def multi_annotated(data: AuditData) -> dict[str, dict[str, str]]:
    """Items with at least two original annotations."""
    return {i: dict(a) for i, a in data.crowd.items() if len(a) >= 2}


def crowd_labels(data: AuditData, *, method: str) -> dict[str, tuple[str | None, float | None]]:
    """Item id -> (aggregated label, p_d) with H3's majority / strict / median aggregation."""
    table = ratings_table(multi_annotated(data))
    negative = data.spec.negative_label
    return {a.item: (a.label, a.p_d) for a in aggregate(table, method=method, negative=negative)}


def _compare(pairs: list[tuple[str, str]]) -> tuple[int, float | None, float | None]:
    if not pairs:
        return 0, None, None
    truth, pred = [t for t, _ in pairs], [p for _, p in pairs]
    acc = sum(t == p for t, p in pairs) / len(pairs)
    return len(pairs), acc, float(f1_score(truth, pred, average="weighted", zero_division=0.0))


def crowd_section(data: AuditData) -> Section:
    """Crowd agreement, and majority / strict aggregation against gold and original labels (App. B)."""
    multi = multi_annotated(data)
    if not multi:
        return not_applicable(KEY, TITLE, "the source project has one annotation per task",
                              sizes={"items": len(data.items)})
    agreement = rater_agreement("crowd annotators", multi, spec=data.spec)
    by_id = {str(it.id): it for it in data.items}
    gold = {i: data.gold(by_id[i])[0] for i in multi if i in by_id}
    methods = ["majority", "strict"] if data.spec.family == "binary" else ["majority", "median"]
    rows = []
    for method in methods:
        labels = crowd_labels(data, method=method)
        vs_gold = [(gold[i], lab) for i, (lab, _) in labels.items() if gold.get(i) is not None and lab is not None]
        vs_orig = [(by_id[i].original, lab) for i, (lab, _) in labels.items()
                   if i in by_id and by_id[i].original is not None and lab is not None]
        rows.append((f"crowd {method}", *_compare(vs_gold), *_compare(vs_orig)))
    ens_gold = [(gold[i], by_id[i].prediction) for i in multi
                if gold.get(i) is not None and i in by_id and by_id[i].prediction is not None]
    ens_orig = [(by_id[i].original, by_id[i].prediction) for i in multi
                if i in by_id and by_id[i].prediction is not None and by_id[i].original is not None]
    rows.append(("LLM ensemble", *_compare(ens_gold), *_compare(ens_orig)))
    compare = Table.build("Against gold and original labels (Nahum App. B: weighted F1)",
                          ("annotation", "n gold", "accuracy vs gold", "weighted F1 vs gold",
                           "n original", "accuracy vs original", "weighted F1 vs original"), rows)
    agree = Table.build("Crowd agreement", AGREEMENT_COLUMNS, [agreement.cells()])
    notes = [n for n in (paradox_note(agreement),) if n]
    if not any(r[1] for r in rows):
        notes.append("No crowd-annotated item has a gold label yet: the gold columns are pending.")
    return Section(KEY, TITLE, Status.OK, sizes={"items with ≥2 annotations": len(multi),
                                                  "annotators": agreement.n_raters,
                                                  "with gold": sum(g is not None for g in gold.values())},
                   tables=(agree, compare), notes=tuple(notes), values={"agreement": agreement.values()})


def stratified_section(data: AuditData) -> Section:
    return not_applicable("stratified", "Stratified by annotator certainty (p_d)", "not wired yet")
