"""Routing of ``review push`` by the triage: likely errors to the blind review, the rest listed for the lead.

Ambiguous items and guideline gaps are what should change the guidelines, not the labels: sending them
to the experts as "is this label wrong?" spends their time where trained people disagree anyway. The
push keeps its hooks to one call (:func:`route_suspects`) and one option (``--hold-ambiguous``, opt-in: it trades
recall for the experts' time; with named annotators it cuts the items per confirmed error 2-4x, on an
anonymous low-agreement crowd only with a judge that reads the task, docs/triage.md).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Mapping, Sequence

from backend.review.triage import AMBIGUOUS, GUIDELINE_GAP, LIKELY_ERROR, triage_items

__all__ = ["route_suspects", "held_lines", "MIN_SOURCES"]

#: Sources of labels (annotators or the original label, judges, the CL member) the routing needs.
MIN_SOURCES = 3


def route_suspects(results: Sequence[Any], candidates: Sequence[Any], *, labels: Sequence[str],
                   outcomes: Sequence[Any] = (), crowd: Mapping[str, Mapping[str, str]] | None = None,
                   include_ambiguous: bool = True, is_error: Any = None) -> tuple[list[Any], dict[str, Any]]:
    """The suspects ``review push`` sends, and the triage it reports (``candidates`` keep their order).

    ``is_error`` (gold, original) -> bool: what counts as a wrong label (the family's disagreement,
    :func:`backend.scoring.ensemble.label_error`), for the triage's P(wrong) and its learnt cut.

    Likely errors go to the blind review as before; ambiguous and guideline-gap items are held back for
    the lead (listed in the returned block under ``held``) unless ``include_ambiguous``. ``results`` are
    every ledger row of the project (the truth model needs the clear items too), ``outcomes`` the stored
    review outcomes (:class:`backend.review.outcome.ReviewOutcome`); the experts' settled ones anchor it.
    ``crowd`` is item -> annotator -> label, the original annotations the ledger keeps
    (:func:`backend.labelstudio.tasks.crowd_by_item`): the report's triage reads the same, so a suspect
    gets one class in both.
    Not triaged, every candidate sent as before: tasks asked as several questions (``ItemResult.questions``),
    projects with fewer than :data:`MIN_SOURCES` sources (the original label and one judge: the latent-class
    model is not identified), and suspects with no member distribution (nothing but their own label).
    """
    if any(getattr(r, "questions", ()) for r in results) or not candidates:
        return list(candidates), {}
    anchors = {str(o.task_id): o.gold for o in outcomes if o.status.by_experts and o.gold is not None}
    result = triage_items(results, labels=labels, crowd=crowd, anchors=anchors, is_error=is_error)
    if len(result.sources) < MIN_SOURCES:
        return list(candidates), {"not_applied": f"{len(result.sources)} source(s) of labels; Dawid–Skene needs at "
                                                 f"least {MIN_SOURCES} to be identified: every suspect is sent",
                                  "held": [], "gaps": [], "classes": {}, "thresholds": asdict(result.thresholds),
                                  "include_ambiguous": include_ambiguous}
    klass = {t.item: t.klass for t in result.items}
    sent = [c for c in candidates if include_ambiguous or klass.get(str(c.id), LIKELY_ERROR) == LIKELY_ERROR]
    sent_ids = {str(c.id) for c in sent}
    held = [t.to_json() for t in result.items if t.item not in sent_ids
            and t.item in {str(c.id) for c in candidates}]
    return sent, {"thresholds": asdict(result.thresholds), "classes": {k: sum(v == k for v in klass.values())
                                                                         for k in (LIKELY_ERROR, AMBIGUOUS, GUIDELINE_GAP)},
                  "held": held, "gaps": [g.to_json() for g in result.gaps], "include_ambiguous": include_ambiguous}


def held_lines(block: dict[str, Any]) -> list[str]:
    """What the push prints for the lead: the triage's counts, thresholds, held items and gaps."""
    if not block:
        return []
    if block.get("not_applied"):
        return [f"triage not applied: {block['not_applied']}"]
    classes = ", ".join(f"{n} {k}" for k, n in block["classes"].items())
    lines = [f"triage ({classes}; thresholds from {block['thresholds']['source']})"]
    if block["held"]:
        lines.append(f"held back for the lead ({len(block['held'])}; --include-ambiguous sends them):")
        lines.extend(f"  {t['item']}: {t['class']} ({'; '.join(t['reasons'])})" for t in block["held"])
    lines.extend(f"guideline gap {' / '.join(g['pair'])}: {g['n_items']} flagged items, confusion rate {g['rate']:.2f}"
                 for g in block["gaps"])
    return lines
