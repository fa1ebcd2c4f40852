"""How `sync-gold` marks the gold annotations it writes, and the one test every reader uses to skip them.

A gold annotation is written by the dedicated gold user (:data:`GOLD_USER_EMAIL`) and its result region
carries the id :data:`GOLD_REGION_ID`. It is *not* Label Studio's ground truth: Label Studio marks imported
annotations ``ground_truth=true`` and keeps one ground truth per task, so a gold annotation flagged that
way would silently unmark the original. With the marker instead, nothing about the originals changes.

Readers of original labels (the worker's task conversion, the report's crowd statistics) leave gold
annotations out with :func:`is_gold_annotation`, so a label written back never counts as one more
original label; the writer updates only annotations that carry the marker *and* are by its own user, so
an annotation by a real account that happens to share the email is never touched. (Gold annotations
written by versions before the marker — ground truth by the gold user, no marker — are not recognised:
delete them in Label Studio and run `sync-gold --to-labelstudio` again.)
"""

from __future__ import annotations

from typing import Any, Mapping

from backend.labelstudio.taskshape import field, user_id_of

GOLD_USER_EMAIL = "gold@label-audit.local"
GOLD_REGION_ID = "label-audit-gold"


def mark_gold(regions: list[dict[str, Any]], *, stored: Mapping[str, Mapping[str, str]] | None = None
              ) -> list[dict[str, Any]]:
    """A family's result regions as a gold annotation: the first carries the marker, choices as stored.

    ``stored`` maps a ``<Choices>`` control's name to its label (alias or value) -> the ``value`` Label
    Studio stores for that ``<Choice>`` (per control: two controls may share a label and store it apart).
    """
    out = []
    for i, region in enumerate(regions):
        value = dict(region.get("value") or {})
        own = (stored or {}).get(str(region.get("from_name")))
        if "choices" in value and own:
            value["choices"] = [own.get(c, c) for c in value["choices"]]
        out.append({**region, "id": GOLD_REGION_ID if i == 0 else f"{GOLD_REGION_ID}-{i}", "value": value})
    return out


def gold_result(*, control: str, to_name: str, value: str) -> list[dict[str, Any]]:
    """The result of a gold annotation: one choice, in the region that carries the marker."""
    return [{"id": GOLD_REGION_ID, "from_name": control, "to_name": to_name, "type": "choices",
             "value": {"choices": [value]}}]


def is_gold_annotation(annotation: Any, gold_user_id: int | None = None) -> bool:
    """A gold annotation of ours: its result carries the marker (and, when given, it is by the gold user)."""
    result = field(annotation, "result") or ()
    marked = any(field(region, "id") == GOLD_REGION_ID for region in result if region is not None)
    return marked and (gold_user_id is None or user_id_of(field(annotation, "completed_by")) == gold_user_id)
