"""Test-built audit inputs: planted truths, flips, member probabilities and expert answers.

Everything here is constructed on purpose so the tests know the right answer independently of the
report code; the statistics the report computes on it are real.
"""

from __future__ import annotations

from backend.scoring.results import ItemResult, MemberResult
from backend.task.spec import load_spec
from stats_cli.report.inputs import AuditData, ExpertReview

SPEC = load_spec("factual-consistency")
MEMBERS = ("local:a/p1", "local:a/p2", "local:b/p1", "local:b/p2")


def planted_items(n: int = 40, *, flipped: set[int], false_alarms: set[int], seed_conf: float = 0.6):
    """Items whose truth is ``i % 3 != 0 -> "1"``; originals flipped on ``flipped``.

    The ensemble predicts the truth everywhere except ``false_alarms`` (where it contradicts a
    correct original); confidence grows with the index so bins have distinct confidences.
    """
    items, truth = [], {}
    for i in range(n):
        t = "1" if i % 3 else "0"
        truth[f"t{i}"] = t
        original = ("0" if t == "1" else "1") if i in flipped else t
        pred = ("0" if t == "1" else "1") if i in false_alarms else t
        conf = round(seed_conf + (0.39 * i / max(n - 1, 1)), 4)
        members = []
        for j, mid in enumerate(MEMBERS):
            c = min(0.99, max(0.51, conf + (0.05 if j % 2 else -0.05)))
            probs = {pred: c, ("0" if pred == "1" else "1"): 1 - c}
            members.append(MemberResult(mid, probs=probs, method="logprobs"))
        flagged = pred != original and conf >= 0.5
        items.append(ItemResult(id=f"t{i}", original=original, prediction=pred, confidence=conf,
                                probs={pred: conf, ("0" if pred == "1" else "1"): 1 - conf},
                                flagged=flagged, members=tuple(members)))
    return items, truth


def planted_audit(*, n: int = 40, flipped=frozenset({2, 3, 5, 11, 12, 17, 27, 29, 35}),
                  false_alarms=frozenset({8, 31}), split: str | None = "t11", reviewed_share: float = 1.0,
                  reconcile: bool = True, crowd: bool = False) -> tuple[AuditData, dict[str, str]]:
    """A reviewed project: experts A and B answer the truth, except B on ``split`` (reconciled to truth)."""
    items, truth = planted_items(n, flipped=set(flipped), false_alarms=set(false_alarms))
    flagged = [it for it in items if it.flagged]
    n_rev = int(round(len(flagged) * reviewed_share))
    reviews = {}
    for it in flagged[:n_rev]:
        t = truth[str(it.id)]
        b = ("0" if t == "1" else "1") if str(it.id) == split else t
        r2 = {"A": t, "B": t} if (str(it.id) == split and reconcile) else {}
        reviews[str(it.id)] = ExpertReview(str(it.id), round1={"A": t, "B": b}, round2=r2)
    crowd_map = {}
    if crowd:
        for it in items:
            i = int(str(it.id)[1:])
            t = truth[str(it.id)]
            other = "0" if t == "1" else "1"
            crowd_map[str(it.id)] = {"w1": t, "w2": t if i % 4 else other, "w3": other if i % 5 == 0 else t}
    data = AuditData(project="planted", spec=SPEC, items=tuple(items),
                     routed=frozenset(str(it.id) for it in flagged), reviews=reviews, crowd=crowd_map)
    return data, truth


def with_sample(data, truth, *, design: str, budget: int):
    """``data`` with a drawn sample whose items the experts (A and B) answered with the truth."""
    from dataclasses import replace

    from backend.review.sampling import Candidate, draw_sample
    from stats_cli.report.inputs import ExpertReview

    candidates = [Candidate(str(it.id), flagged=it.flagged, in_review=str(it.id) in data.routed,
                            confidence=it.confidence) for it in data.items]
    draw = draw_sample(candidates, budget=budget, design=design, seed=3)
    reviews = dict(data.reviews)
    for drawn in draw.items:
        t = truth[drawn.task_id]
        reviews.setdefault(drawn.task_id, ExpertReview(drawn.task_id, round1={"A": t, "B": t}))
    return replace(data, reviews=reviews, sample=draw, sampled=frozenset(i.task_id for i in draw.items)), draw
