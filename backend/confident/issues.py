"""cleanlab's own label-issue ranking, reported beside the ensemble's flags.

The ensemble flags an item when its averaged probabilities confidently contradict the label; cleanlab's
``find_label_issues`` instead prunes by the estimated joint of noisy and true labels (Northcutt et al.
2021, "prune by noise rate") and ranks what it prunes by self-confidence. Both read the same
out-of-fold probabilities; showing both lets a user see where they differ. The library does the work:
nothing here reimplements it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from cleanlab.filter import find_label_issues


def label_issue_ranking(labels: Sequence[int], probs: np.ndarray) -> list[int]:
    """Row indices cleanlab calls label issues, most likely first (``find_label_issues``, self-confidence)."""
    # n_jobs=1: cleanlab otherwise forks a multiprocessing pool, and a fork from a process with other threads
    # (a worker's, pyarrow's jemalloc background thread) can leave the child waiting forever on a lock it
    # copied held: seen in the test suite, a child stuck on a futex for 10 minutes. One process gives the same
    # ranking (cleanlab: n_jobs only affects runtimes).
    ranked = find_label_issues(np.asarray(labels, dtype=int), np.asarray(probs, dtype=float),
                               return_indices_ranked_by="self_confidence", n_jobs=1)
    return [int(i) for i in ranked]


def ranking_report(ids: Sequence[str], originals: Sequence[str], member_probs: Sequence[Mapping[str, float]],
                   classes: Sequence[str], *, flagged: set[str], member: str, top: int) -> dict[str, Any]:
    """The summary block: how many issues cleanlab finds among ``ids``, its top ones, overlap with the flags.

    ``member_probs[i]`` is the confident-learning member's stored answer for ``ids[i]`` (its out-of-fold
    probabilities), so the block is rebuilt from results alone: a run served from the cache has it too.
    """
    index = {c: n for n, c in enumerate(classes)}
    labels = [index[o] for o in originals]
    probs = np.array([[float(p.get(c, 0.0)) for c in classes] for p in member_probs])
    ranked = label_issue_ranking(labels, probs)
    issue_ids = [ids[i] for i in ranked]
    return {
        "member": member,
        "method": "cleanlab.filter.find_label_issues (prune_by_noise_rate, ranked by self_confidence)",
        "items": len(ids),
        "issues": len(issue_ids),
        "also_flagged_by_ensemble": sum(1 for i in issue_ids if i in flagged),
        "top": [{"id": ids[i], "original": originals[i],
                 "self_confidence": round(float(probs[i, labels[i]]), 4)} for i in ranked[:top]],
    }
