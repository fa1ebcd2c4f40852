"""``auto``: the correction the project's own labels choose — the gate's verdicts, ``given`` or ``fitted``.

Why: on the real judge no one reading of the judges is best on every project (docs/judges.md). ``fitted`` (a
model of the labels over every judge's answers, :mod:`backend.scoring.label_fit`) finds SNLI's neutral class that
the average misses (accuracy 0.65 -> 0.78 on 100 items, 0.47 -> 0.70 on a natural 80), but costs accuracy where
the judges already read the project well (Rotten Tomatoes 0.86 -> 0.81) or where 64 items are too few for its
model (SNLI with hints 0.64 -> 0.59, where ``given`` reads 0.70). The labels under audit are mostly right (an
audit looks for the few that are not), so the reading whose verdicts agree with more of them is the better reader
of *this* project — provided no label is read to predict itself: the gate's verdicts read no label, ``fitted``
predicts each item from a model of the other folds' labels, ``given`` reads only the labels' class counts (one
label moves a share by 1/n). Ties keep the simpler reading (the gate's, then ``given``, then ``fitted``).
``fitted`` is a candidate only from :data:`backend.scoring.label_fit.MIN_LABELS` labels: on smaller runs a count
two or three labels ahead chose it where it read worse than the average (docs/judges.md).

Agreement is the plain share of the scored items whose verdict is their label. Measured on the real judge's four
runs (docs/judges.md), it chose on each the reading with the best *true* accuracy (SNLI hints 64: ``given``;
Rotten Tomatoes 64: the average; SNLI 100: ``fitted``; SNLI natural 80: ``given``). Agreement counted class by
class (balanced accuracy) was tried first and chose the worst reading on the natural sample (the average, 0.47,
which answers its rare class four times too often); the log loss of the labels chose neither consistently.

Why by hand: a count of agreeing labels over the product's own corrections; no library chooses among them.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from backend.scoring.ensemble import VerdictRule
from backend.scoring.results import ItemResult

__all__ = ["CANDIDATES", "agreement", "choose_correction"]

#: The readings ``auto`` chooses among, simplest first (a tie keeps the earlier).
CANDIDATES = ("none", "given", "fitted")


def agreement(results: Sequence[ItemResult], labels: Sequence[str]) -> dict[str, int]:
    """How many of the scored items whose label is a class the verdicts agree with: ``agree`` of ``of``."""
    counted = [r for r in results if r.prediction is not None and r.original in labels]
    return {"agree": sum(str(r.prediction) == str(r.original) for r in counted), "of": len(counted)}


def choose_correction(results: Iterable[ItemResult], gated: Sequence[ItemResult], rule: VerdictRule, *,
                      left_out: Iterable[str] = ()) -> tuple[list[ItemResult], dict[str, Any]]:
    """The candidate reading whose verdicts agree with the most of the project's own labels, and the summary's
    block.

    ``gated`` are ``results`` after the health gate (the ``none`` candidate); ``left_out`` the gate's members, which
    no correction reads. A correction that refuses (too few labels of a class for ``fitted``) is not a candidate;
    the block says why (``refused``), the agreement of each candidate and which was ``chosen``.
    """
    from backend.scoring.prior_shift import correct_results  # prior_shift reads this module's mode name

    results, skip = list(results), list(left_out)
    labels = list(rule.spec.labels)
    candidates: dict[str, tuple[list[ItemResult], dict[str, Any]]] = {"none": (list(gated), {"mode": "none"})}
    refused: dict[str, str] = {}
    for mode in CANDIDATES[1:]:
        out, info = correct_results(results, rule, mode=mode, left_out=skip)
        if info.get("note"):
            refused[mode] = str(info["note"])
        else:
            candidates[mode] = (out, info)
    scores = {mode: agreement(out, labels) for mode, (out, _) in candidates.items()}
    chosen = max(candidates, key=lambda m: (scores[m]["agree"], -CANDIDATES.index(m)))
    out, info = candidates[chosen]
    block: dict[str, Any] = {**{k: v for k, v in info.items() if k != "mode"}, "mode": "auto", "chosen": chosen,
                             "agreement": scores}
    if refused:
        block["refused"] = refused
    return out, block
