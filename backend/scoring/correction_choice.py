"""``auto``: the correction the project's own labels choose — the gate's verdicts, ``given`` or ``fitted``.

Why: on the real judge no one reading of the judges is best on every project (docs/judges.md). ``fitted`` (a
model of the labels over every judge's answers, :mod:`backend.scoring.label_fit`) finds SNLI's neutral class that
the average misses (accuracy 0.65 -> 0.78 on 100 items, 0.47 -> 0.70 on a natural 80), but costs accuracy where
the judges already read the project well (Rotten Tomatoes 0.86 -> 0.81) or where 64 items are too few for its
model (SNLI with hints 0.64 -> 0.59, where ``given`` reads 0.70). The labels under audit are mostly right (an
audit looks for the few that are not), so the reading whose verdicts agree with more of them is the better reader
of *this* project — provided no label is read to predict itself: the gate's verdicts read no label, ``fitted``
predicts each item from a model of the other folds' labels, ``given`` reads only the labels' class counts (one
label moves a share by 1/n). Agreement is counted class by class (the mean over the labels' classes of the share of
each class's labels the verdicts agree with, scikit-learn's balanced accuracy): a reading that never answers a rare
class cannot flag an error into it, and raw agreement would not see that on a project whose classes are unequal
(``given`` on 80 natural SNLI items: the most items right, contradiction never answered). Ties keep the simpler
reading (the gate's, then ``given``, then ``fitted``).

Why by hand: the agreement is scikit-learn's ``balanced_accuracy_score``; only the candidates and the rule that
chooses among them are ours.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from backend.scoring.ensemble import VerdictRule
from backend.scoring.results import ItemResult

__all__ = ["CANDIDATES", "agreement", "choose_correction"]

#: The readings ``auto`` chooses among, simplest first (a tie keeps the earlier).
CANDIDATES = ("none", "given", "fitted")


def agreement(results: Sequence[ItemResult], labels: Sequence[str]) -> dict[str, Any]:
    """How the verdicts agree with the labels: ``agree`` of ``of`` scored items whose label is a class, and
    ``balanced``, the mean over the labels' classes of the share of that class's labels the verdicts agree with."""
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    counted = [(str(r.original), str(r.prediction)) for r in results
               if r.prediction is not None and r.original in labels]
    balanced = 0.0
    if counted:
        with warnings.catch_warnings():  # a verdict answering a class no label has: not a class of the mean
            warnings.simplefilter("ignore")
            balanced = float(balanced_accuracy_score([o for o, _ in counted], [p for _, p in counted]))
    return {"agree": sum(o == p for o, p in counted), "of": len(counted), "balanced": round(balanced, 6)}


def choose_correction(results: Iterable[ItemResult], gated: Sequence[ItemResult], rule: VerdictRule, *,
                      left_out: Iterable[str] = ()) -> tuple[list[ItemResult], dict[str, Any]]:
    """The candidate reading whose verdicts agree best with the project's own labels, class by class, and the
    summary's block.

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
    chosen = max(candidates, key=lambda m: (scores[m]["balanced"], -CANDIDATES.index(m)))
    out, info = candidates[chosen]
    block: dict[str, Any] = {**{k: v for k, v in info.items() if k != "mode"}, "mode": "auto", "chosen": chosen,
                             "agreement": scores}
    if refused:
        block["refused"] = refused
    return out, block
