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
from backend.review.triage_scope import TriageScope, triage_scopes
from backend.scoring.ensemble import label_error
from backend.task.spec import TaskSpec

__all__ = ["route_suspects", "held_lines", "MIN_SOURCES"]

#: Sources of labels (annotators or the original label, judges, the CL member) the routing needs.
MIN_SOURCES = 3
#: Classes that hold a suspect back for the lead (with ``include_ambiguous`` False).
HELD_CLASSES = (AMBIGUOUS, GUIDELINE_GAP)


def route_suspects(results: Sequence[Any], candidates: Sequence[Any], *, spec: TaskSpec,
                   outcomes: Sequence[Any] = (), crowd: Mapping[str, Mapping[str, str]] | None = None,
                   include_ambiguous: bool = True) -> tuple[list[Any], dict[str, Any]]:
    """The suspects ``review push`` sends, and the triage it reports (``candidates`` keep their order).

    Likely errors go to the blind review as before; ambiguous and guideline-gap items are held back for
    the lead (listed in the returned block under ``held``) unless ``include_ambiguous``. ``results`` are
    every ledger row of the project (the truth model needs the clear items too), ``outcomes`` the stored
    review outcomes (:class:`backend.review.outcome.ReviewOutcome`); the experts' settled ones anchor it.
    ``crowd`` is item -> annotator -> label, the original annotations the ledger keeps
    (:func:`backend.labelstudio.tasks.crowd_by_item`): the report's triage reads the same, so a suspect
    gets one class in both.
    Every single-label question is triaged (:func:`backend.review.triage_scope.triage_scopes`): the task
    itself, also when asked in several option orders, or each control of a several-control project that has
    one label per item, on the control's own classes (the block then holds one triage per control under
    ``controls``, and an item is held back only when every control it is flagged on is held back).
    Not triaged, every candidate sent as before: multi-label sets and spans (``not_applied`` says why),
    a question with fewer than :data:`MIN_SOURCES` sources (the original label and one judge: the
    latent-class model is not identified), and suspects with no member distribution.
    """
    if not candidates:
        return list(candidates), {}
    anchors = {str(o.task_id): o.gold for o in outcomes if o.status.by_experts and o.gold is not None}
    scopes, skipped = triage_scopes(spec, results, crowd=crowd or {}, anchors=anchors)
    if not scopes:
        return list(candidates), {"not_applied": "; ".join(skipped.values()), "held": [],
                                  "include_ambiguous": include_ambiguous}
    triaged = {scope.control: _triage(scope) for scope in scopes}
    classes = {control: {row["item"]: row["class"] for row in rows} for control, (_block, rows) in triaged.items()}
    sent, held = [], []
    for c in candidates:
        flagged = [None] if scopes[0].control is None else [str(q.id) for q in c.questions if q.flagged]
        said = [classes.get(name, {}).get(str(c.id)) for name in flagged]
        if include_ambiguous or not flagged or not all(k in HELD_CLASSES for k in said):
            sent.append(c)
            continue
        held.extend({**row, **({"control": name} if name is not None else {})}
                    for name in flagged for row in triaged[name][1] if row["item"] == str(c.id))
    if scopes[0].control is None:
        return sent, {**triaged[None][0], "held": held, "include_ambiguous": include_ambiguous}
    return sent, {"controls": {name: block for name, (block, _rows) in triaged.items()}, "skipped": skipped,
                  "held": held, "include_ambiguous": include_ambiguous}


def _triage(scope: TriageScope) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One question's triage block (thresholds, counts per class, gaps) and its suspects' rows."""
    result = triage_items(scope.results, labels=scope.labels, crowd=scope.crowd, anchors=scope.anchors,
                          is_error=lambda gold, original: label_error(gold, original, scope.spec),
                          refits=0)  # the push shows no source interval: no bootstrap refits
    if len(result.sources) < MIN_SOURCES:
        return {"not_applied": f"{len(result.sources)} source(s) of labels; Dawid–Skene needs at least "
                               f"{MIN_SOURCES} to be identified: every suspect is sent",
                "gaps": [], "classes": {}, "thresholds": asdict(result.thresholds)}, []
    counts = {k: len(result.by_class(k)) for k in (LIKELY_ERROR, AMBIGUOUS, GUIDELINE_GAP)}
    return {"thresholds": asdict(result.thresholds), "classes": counts,
            "gaps": [g.to_json() for g in result.gaps]}, [t.to_json() for t in result.items]


def held_lines(block: dict[str, Any]) -> list[str]:
    """What the push prints for the lead: the triage's counts, thresholds, held items and gaps (per control)."""
    if not block:
        return []
    if "controls" not in block:
        return _lines(block, "") + _held(block)
    lines = [f"{name}: triage not applied: {why}" for name, why in block.get("skipped", {}).items()]
    for name, own in block["controls"].items():
        lines.extend(_lines(own, f"{name}: "))
    return lines + _held(block)


def _lines(block: dict[str, Any], prefix: str) -> list[str]:
    if block.get("not_applied"):
        return [f"{prefix}triage not applied: {block['not_applied']}"]
    classes = ", ".join(f"{n} {k}" for k, n in block["classes"].items())
    return [f"{prefix}triage ({classes}; thresholds from {block['thresholds']['source']})"] + [
        f"{prefix}guideline gap {' / '.join(g['pair'])}: {g['n_items']} flagged items, confusion rate {g['rate']:.2f}"
        for g in block["gaps"]]


def _held(block: dict[str, Any]) -> list[str]:
    if not block.get("held"):
        return []
    items = len({t["item"] for t in block["held"]})
    return [f"held back for the lead ({items}; --include-ambiguous sends them):"] + [
        f"  {t['item']}{' [' + t['control'] + ']' if t.get('control') else ''}: {t['class']} "
        f"({'; '.join(t['reasons'])})" for t in block["held"]]
