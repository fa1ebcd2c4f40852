"""How often the verdicts predict each class, against how often the run's own labels use it.

Why: a reading of the judges that rarely predicts a class cannot flag a label wrongly set away from that class,
and flags the items that carry it more than the others; one that over-predicts a class pulls flags towards it.
The tool never knows the true classes, but the labels under audit are mostly right, so their counts are the
yardstick it has: a class predicted for fewer than 1/1.5 or more than 1.5 times the items that carry it is
named, with both counts. On the 32 recorded runs of the real judge in docs/judges.md ("The verdicts against the
labels"), this check named a class on each of the 13 runs whose predictions missed 1.5x of the *true* counts
and on none of the 19 that met it. Below :data:`MIN_LABELS` labels of a class it says nothing of that class.

Single-choice tasks only (binary, nominal): a multi-label or span prediction is not one class per item, and a
rating's neighbouring grades are not measured here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from backend.scoring.results import ItemResult

__all__ = ["REACH_FAMILIES", "MIN_LABELS", "READ_BAR", "class_reach", "reach_lines"]

#: The issue's bar for a class ratio (docs/judges.md): predicted within 1.5x of the class's count either way.
READ_BAR = 1.5
#: Fewer labels of a class than this, and one item moves its ratio by a fifth or more: not judged.
MIN_LABELS = 5
REACH_FAMILIES = frozenset({"binary", "nominal"})


def class_reach(results: Iterable[ItemResult], labels: Sequence[str], *, min_labels: int = MIN_LABELS,
                bar: float = READ_BAR) -> dict[str, Any]:
    """Per class: the items whose label it is and the items the verdicts predict it for, over the scored items
    whose label is a class; ``under`` and ``over`` name the classes outside ``bar`` (with at least ``min_labels``).

    >>> from backend.scoring.results import ItemResult
    >>> rows = [ItemResult(str(i), o, p, 0.9, None, o != p) for i, (o, p) in enumerate(
    ...     [("a", "a")] * 6 + [("b", "a")] * 4 + [("b", "b")] * 2)]
    >>> block = class_reach(rows, ["a", "b"])
    >>> block["under"], block["over"], block["classes"][1]
    (['b'], ['a'], {'label': 'b', 'labelled': 6, 'predicted': 2})
    """
    if bar <= 1.0 or min_labels < 1:
        raise ValueError(f"bar must exceed 1 and min_labels be at least 1, got {bar!r} and {min_labels!r}")
    names = [str(label) for label in labels]
    counted = [r for r in results if r.prediction is not None and str(r.original) in names
               and str(r.prediction) in names]
    labelled = Counter(str(r.original) for r in counted)
    predicted = Counter(str(r.prediction) for r in counted)
    rows = [{"label": lab, "labelled": labelled[lab], "predicted": predicted[lab]} for lab in names]
    judged = [row for row in rows if row["labelled"] >= min_labels]
    return {"items": len(counted), "bar": bar, "min_labels": min_labels, "classes": rows,
            "under": [row["label"] for row in judged if row["predicted"] < row["labelled"] / bar],
            "over": [row["label"] for row in judged if row["predicted"] > row["labelled"] * bar]}


def reach_lines(block: dict[str, Any] | None) -> list[str]:
    """The sentence a lead reads when a class is under- or over-read (nothing when every judged class is within)."""
    if not block or not (block.get("under") or block.get("over")):
        return []
    rows = {row["label"]: row for row in block["classes"]}

    def said(label: str) -> str:
        row = rows[label]
        items = "item" if row["predicted"] == 1 else "items"
        return f"\"{label}\" predicted for {row['predicted']} {items} where {row['labelled']} carry it"

    parts = []
    if block["under"]:
        parts.append("; ".join(said(lab) for lab in block["under"]) + " (under-read: a label wrongly set away from "
                     "it can hardly be flagged, and items that carry it are flagged more than others)")
    if block["over"]:
        parts.append("; ".join(said(lab) for lab in block["over"]) + " (over-read: flags lean towards it)")
    return [f"Verdicts against the labels under audit, outside {block['bar']:g}x of a class's count: "
            + "; ".join(parts) + f" — over {block['items']} labelled items (the labels are the yardstick: mostly "
            "right, never the truth). Readable values with a <Header> question, or guidelines that define each "
            "class, read a class better (docs/judges.md)."]
