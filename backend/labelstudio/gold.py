"""How `sync-gold` marks the gold annotations it writes, and the one test every reader uses to skip them.

A gold annotation is written by the dedicated gold user (:data:`GOLD_USER_EMAIL`) as ground truth.
Readers of original labels (the worker's
task conversion, the report's crowd statistics) leave gold annotations out with :func:`is_gold_annotation`,
so a label written back never counts as one more original label.
"""

from __future__ import annotations

from typing import Any, Mapping

GOLD_USER_EMAIL = "gold@label-audit.local"


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def annotator_id(annotation: Any) -> int | None:
    """The ``completed_by`` user id of an annotation (a dict, an id, or an SDK object)."""
    by = _get(annotation, "completed_by")
    by = _get(by, "id") if isinstance(by, Mapping) or hasattr(by, "id") else by
    try:
        return None if by is None or isinstance(by, bool) else int(by)
    except (TypeError, ValueError):
        return None


def is_gold_annotation(annotation: Any, gold_user_id: int | None) -> bool:
    """Annotations written by `sync-gold` (the gold user's ground truth) are not original labels."""
    return (bool(_get(annotation, "ground_truth")) and gold_user_id is not None
            and annotator_id(annotation) == gold_user_id)
