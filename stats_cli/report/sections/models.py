"""Models under evaluation on original vs gold labels, re-ranked (Nahum Table 4) with ``stats_cli.stats.rerank``."""

from __future__ import annotations

from stats_cli.stats.rerank import METRIC_NAMES, METRICS, rerank

from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "models", "Models on original vs gold labels"


def models_section(data: AuditData) -> Section:
    """ROC AUC, positive-class and weighted F1, accuracy and ROC-AUC rank of each model on original and gold labels (binary tasks)."""
    if not data.models:
        return not_applicable(KEY, TITLE, "no --models file given")
    if not data.spec.task_family.two_class:
        return not_applicable(KEY, TITLE, "re-ranking by ROC AUC needs a binary task")
    by_id = {str(it.id): it for it in data.items}
    cols: dict[str, list] = {"model": [], "score": [], "original": [], "gold": []}
    skipped = 0
    for model, scores in data.models.items():
        for item_id, score in scores.items():
            it = by_id.get(str(item_id))
            gold = data.gold(it)[0] if it is not None else None
            if it is None or gold is None or it.original is None or score is None:
                skipped += 1
                continue
            cols["model"].append(model)
            cols["score"].append(float(score))
            cols["original"].append(it.original)
            cols["gold"].append(gold)
    sizes = {"models": len(data.models), "scored items with gold": len(cols["model"]), "skipped (no gold yet)": skipped}
    if not cols["model"]:
        return pending(KEY, TITLE, "none of the models' items has a settled gold label yet", sizes=sizes)
    ranked = rerank(cols["model"], cols["score"], None, cols["original"], cols["gold"],
                    positive=data.spec.positive_label)
    rows = []
    for r in ranked:
        j = r.to_json()
        rows.append((r.model, r.n, r.rank_original, r.rank_gold, r.rank_change,
                     *(j[f"{m}_{side}"] for m in METRICS for side in ("original", "gold"))))
    table = Table.build("Model performance on original vs gold labels (Nahum Table 4; rank by ROC AUC)",
                        ("model", "n", "rank original", "rank gold", "rank change",
                         *(f"{METRIC_NAMES[m]} {side}" for m in METRICS for side in ("original", "gold"))), rows)
    notes = (f"F1 (positive class) is the F1 of {data.spec.positive_label!r}, as in Table 4; weighted F1 averages "
             "both classes' F1 by their support, as Nahum App. B compares annotations.",
             *(f"{r.model}: {reason} ({metric.replace('_', ' ')})" for r in ranked
               for metric, reason in r.to_json()["undefined"].items()))
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table,), notes=notes,
                   values={"models": [r.to_json() for r in ranked]})


class ModelsSection(ReportSection):
    key, title, order = KEY, TITLE, 80

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return models_section(data)
