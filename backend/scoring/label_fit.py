"""The judges' answers combined by a model fitted to the project's own labels, cross-fitted (``fitted``, opt-in).

Why: the ensemble averages its judges, so a class that most judges under-read stays under-read whatever one judge
sees. On SNLI (100 items, the real judge) three of four default prompts give "neutral" at 0.06-0.21 of its true
share and ``generic-definitions@v3`` at 0.64: the average answers it at 0.30, and no re-weighting of the average
(``batch``, ``given``, :mod:`backend.scoring.prior_shift`) can find neutral items in an average that carries so
little of what the one prompt saw. A model that reads every judge's answer, class by class, can: it learns from the
project's labels which judge to believe for which class, and its intercepts carry the project's class shares.

The labels under audit are mostly right, so they can teach such a model, provided no item's label ever reads its
own answer: each item is predicted by a model fitted on the other folds only (out-of-sample probabilities, as
confident learning requires: Northcutt, Jiang & Chuang 2021, *Confident Learning*, JAIR 70). Folds are keyed by
the item's id, so a re-run, a worker's batch order or the audit's project pass give every item the same fold.
With labels flipped at random, the fitted probability of a class is P(label | answers), not P(true | answers):
flatter, but with the same top class while fewer than (K-1)/K of the labels are wrong.

Why by hand: the model is scikit-learn's ``LogisticRegression``; only the features (each judge's log answer per
class), the id-keyed folds and the refusals (too few labels of a class to fit) are ours.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any, Iterable, Sequence

import numpy as np

from backend.scoring.confident_template import KIND as CONFIDENT_KIND
from backend.scoring.ensemble import VerdictRule, decide
from backend.scoring.results import ItemResult

__all__ = ["C", "FOLDS", "MIN_LABELS", "MIN_LABELS_PER_CLASS", "fit_to_labels", "fold_of"]

#: Five folds: each model is fitted on 80 % of the labels, the usual split of cross-validated confident learning.
FOLDS = 5
#: A class with fewer labels than this cannot be learnt in every fold (a fold's model would never predict it).
MIN_LABELS_PER_CLASS = 2 * FOLDS
#: Fewer labels to learn from than this and the model learns the sample more than the judges: on the real judge's
#: 11 distinct runs of 32-48 items its ranking (AP) was below the judges' average on nine, and ``auto`` chose it on
#: two or three labels' more agreement where it read worse (Rotten Tomatoes, 0.81-0.84 -> 0.75); from 64 items it
#: read better on two runs of four (SNLI 100 and natural 80: 0.65 -> 0.78, 0.47 -> 0.70). The runs put the floor
#: between 49 and 64 (docs/judges.md, "A floor for `fitted`"); at 60 each fold's model learns from 48.
MIN_LABELS = 60
#: The inverse L2 strength (scikit-learn's ``C``). Chosen on the real judge's runs by the rule the flag cut was chosen
#: by (the bar met on the most runs): 10 keeps every class within 1.5x on SNLI (balanced, 100 items; natural, 80)
#: and Rotten Tomatoes (64), where scikit-learn's default 1 leaves SNLI's neutral at 0.55 (docs/judges.md).
C = 10.0
#: Answers are read on a log scale; a judge's zero is clipped here (a logprob floor, not a belief).
_FLOOR = 1e-4


def fold_of(item_id: str, folds: int = FOLDS) -> int:
    """The item's fold, from its id alone (stable across runs, orders and processes)."""
    return int.from_bytes(hashlib.sha256(str(item_id).encode("utf-8")).digest()[:8], "big") % folds


def _features(result: ItemResult, members: Sequence[str], labels: Sequence[str]) -> list[float]:
    """Each kept judge's log answer per class; a judge that did not answer this item counts as uniform."""
    answers = {m.member_id: m.probs for m in result.members}
    row: list[float] = []
    for member_id in members:
        probs = answers.get(member_id)
        total = sum(float(probs.get(lab, 0.0)) for lab in labels) if probs else 0.0
        for lab in labels:
            p = float(probs.get(lab, 0.0)) / total if probs and total > 0 else 1.0 / len(labels)
            row.append(float(np.log(max(p, _FLOOR))))
    return row


def fit_to_labels(results: Iterable[ItemResult], rule: VerdictRule, *,
                  left_out: Iterable[str] = ()) -> tuple[list[ItemResult], dict[str, Any]]:
    """Every scored item's verdict re-read from a model of the other folds' labels on the judges' answers.

    The judges left out (the health gate's) are not read; a confident-learning member beside judges is read as one
    more judge, and alone it is not fitted again (it already is a cross-validated model of the labels). Items
    without a verdict, and ones whose label is not among the classes (they teach nothing), are predicted but never
    taught from. Returns the re-read results (the members' rows keep their own answers) and the summary's block;
    when the labels cannot support the fit, the results unchanged and a ``note`` saying why.
    """
    from sklearn.linear_model import LogisticRegression

    results = list(results)
    labels = list(rule.spec.labels)
    skip = set(left_out)
    members = sorted({m.member_id for r in results for m in r.members if m.probs is not None} - skip)
    info: dict[str, Any] = {"mode": "fitted", "folds": FOLDS, "members": members}
    # by id: the same items fit the same models whatever order the run (or a worker's batches) returned them in
    scored = sorted((i for i, r in enumerate(results) if r.prediction is not None), key=lambda i: str(results[i].id))
    taught = [i for i in scored if results[i].original in labels]
    counts = {lab: sum(results[i].original == lab for i in taught) for lab in labels}
    thin = {lab: n for lab, n in counts.items() if n < MIN_LABELS_PER_CLASS}
    if members and all(m.startswith(f"{CONFIDENT_KIND}:") for m in members):
        info["note"] = ("not applied: every member is already a model of the labels (confident learning, "
                        "cross-validated); a second one over its answers adds nothing")
        return results, info
    if not members or thin:
        why = (", ".join(f"{lab} has {n}" for lab, n in thin.items()) if thin else "no judge answered")
        info["note"] = (f"not applied: {why}; a model of the labels needs at least {MIN_LABELS_PER_CLASS} labels of "
                        f"every class ({FOLDS} folds)")
        return results, info
    if len(taught) < MIN_LABELS:
        info["note"] = (f"not applied: {len(taught)} labels; a model of the labels needs at least {MIN_LABELS} to "
                        f"learn from, or it learns the sample more than the judges")
        return results, info
    x = np.array([_features(results[i], members, labels) for i in scored])
    teaches = set(taught)
    y = np.array([labels.index(str(results[i].original)) if i in teaches else -1 for i in scored])
    fold = np.array([fold_of(results[i].id) for i in scored])
    fitted = np.zeros((len(scored), len(labels)))
    for k in range(FOLDS):
        train, held = (fold != k) & (y >= 0), fold == k
        if not held.any():
            continue
        if len(set(y[train].tolist())) < 2:  # every label of all classes but one fell in this fold: nothing to learn
            info["note"] = f"not applied: fold {k + 1} of {FOLDS} leaves fewer than two classes to learn from"
            return results, info
        model = LogisticRegression(C=C, max_iter=5000).fit(x[train], y[train])
        probs = np.zeros((int(held.sum()), len(labels)))
        probs[:, model.classes_] = model.predict_proba(x[held])
        fitted[held] = probs
    info["taught"] = len(taught)
    out = list(results)
    for row, i in zip(fitted, scored):
        result = results[i]
        decision = decide(dict(zip(labels, map(float, row))), result.original, rule.spec, threshold=rule.threshold,
                          delta=rule.delta, insufficient=result.insufficient)
        out[i] = replace(result, prediction=decision.prediction, confidence=decision.confidence, probs=decision.probs,
                         flagged=decision.flagged, insufficient=decision.insufficient)
    return out, info
