"""Where the demo's planted label errors land in the ensemble's ranking: found, ranked first, average precision.

The suspects tab lists the flagged items, most confident first; for a flagged item that confidence is the
ensemble's probability against the original label. Ranking every item by ``1 - p(original label)`` is
that order, continued past the flagged ones, so its average precision over the planted errors (the
sample's only wrong labels) says how early a reader walking down the tab meets them: 1.0 when every
planted error comes before every clean item. The figures rest on the counts returned beside them; with no
planted error, or no scored item, there is nothing to rank and they are None.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["planted_ranking", "ranking_sentence", "suspicion"]


def suspicion(record: dict[str, Any]) -> float | None:
    """The ensemble's probability against the item's original label (None: not scored)."""
    probs = record.get("probs")
    if not probs or record.get("original") is None:
        return None
    return 1.0 - float(probs.get(str(record["original"]), 0.0))


def planted_ranking(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Planted errors, how many the ensemble flagged, how many rank among the first ``planted`` items, and AP.

    ``records`` are result JSON objects (ledger or ``--out``) whose ``data.planted`` marks a planted error.
    An item that was not scored ranks last (it never reaches the suspects tab).
    """
    planted = [bool((r.get("data") or {}).get("planted")) for r in records]
    scores = [suspicion(r) for r in records]
    n_planted = sum(planted)
    scored = sum(s is not None for s in scores)
    order = sorted(range(len(records)), key=lambda i: (scores[i] is None, -(scores[i] or 0.0)))
    first = sum(planted[i] for i in order[:n_planted])
    flagged = [bool(r.get("flagged")) for r in records]
    found = sum(p and f for p, f in zip(planted, flagged))
    ap = None
    # heavy: scikit-learn (~1 s), not loaded by label-audit --help
    from sklearn.metrics import average_precision_score

    if n_planted and n_planted < len(records) and scored:
        ap = float(average_precision_score(planted, [-1.0 if s is None else s for s in scores]))
    return {"items": len(records), "scored": scored, "planted": n_planted, "flagged": sum(flagged),
            "found": found, "ranked_first": first, "average_precision": ap}


def ranking_sentence(figures: dict[str, Any]) -> str:
    """One line for the terminal: what the ensemble found of the planted errors, and the AP it rests on."""
    if not figures["planted"]:
        return "No planted errors in this project: nothing to measure the ranking against."
    ap = figures["average_precision"]
    return (f"Planted errors: the ensemble flagged {figures['found']} of {figures['planted']} "
            f"({figures['flagged']} flagged in all); {figures['ranked_first']} of the {figures['planted']} are among the "
            f"first {figures['planted']} of its ranking; average precision of the planted errors "
            + ("PENDING (nothing scored)" if ap is None else f"{ap:.2f}")
            + f" (1.00: all ranked before every clean item; {figures['scored']} of {figures['items']} items scored).")
