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

GOLD_USER_EMAIL = "gold@label-audit.local"
GOLD_REGION_ID = "label-audit-gold"


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def annotator_id(annotation: Any) -> int | None:
    """The ``completed_by`` user id of an annotation (a dict, an id, or an SDK object)."""
    by = _get(annotation, "completed_by")
    if by is not None and not isinstance(by, (int, str)):
        by = _get(by, "id")
    try:
        return None if by is None or isinstance(by, bool) else int(by)
    except (TypeError, ValueError):
        return None


def gold_result(*, control: str, to_name: str, value: str) -> list[dict[str, Any]]:
    """The result of a gold annotation: one choice, in the region that carries the marker."""
    return [{"id": GOLD_REGION_ID, "from_name": control, "to_name": to_name, "type": "choices",
             "value": {"choices": [value]}}]


def is_gold_annotation(annotation: Any, gold_user_id: int | None = None) -> bool:
    """A gold annotation of ours: its result carries the marker (and, when given, it is by the gold user)."""
    result = _get(annotation, "result") or ()
    marked = any(_get(region, "id") == GOLD_REGION_ID for region in result if region is not None)
    return marked and (gold_user_id is None or annotator_id(annotation) == gold_user_id)
