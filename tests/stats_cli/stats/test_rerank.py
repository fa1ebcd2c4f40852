"""Model ranking on original vs gold labels (Nahum Table 4)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from stats_cli.stats.rerank import relative_change, rerank


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [(0.81, 0.93, 15), (0.93, 0.91, -2), (0.84, 0.80, -5), (0.75, 0.86, 15), (0.73, 0.83, 14), (0.62, 0.68, 10)],
)
def test_table4_relative_changes(before: float, after: float, shown: int) -> None:
    assert round(relative_change(before, after)) == shown


def test_rank_change_when_gold_corrects_errors() -> None:
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, 300)
    original = gold.copy()
    flipped = rng.choice(300, 60, replace=False)
    original[flipped] = 1 - original[flipped]
    truthful = np.clip(gold * 0.6 + rng.normal(0.2, 0.2, 300), 0, 1)  # tracks gold
    copycat = np.clip(original * 0.4 + rng.normal(0.3, 0.25, 300), 0, 1)  # learned the errors
    models = ["truthful"] * 300 + ["copycat"] * 300
    scores = np.concatenate([truthful, copycat])
    out = {r.model: r for r in rerank(models, scores, None, np.tile(original, 2), np.tile(gold, 2))}
    assert out["truthful"].original["roc_auc"].value == pytest.approx(roc_auc_score(original, truthful))
    assert out["truthful"].rank_gold == 1 and out["copycat"].rank_gold == 2
    assert out["copycat"].rank_original == 1 and out["truthful"].rank_change == 1
    assert out["copycat"].to_json()["rank_change"] == -1


def test_single_class_auc_is_undefined() -> None:
    out = rerank(["m", "m"], [0.2, 0.9], ["0", "1"], ["1", "1"], ["0", "1"])
    assert out[0].original["roc_auc"].value is None and out[0].rank_original is None
    assert out[0].gold["roc_auc"].value == 1.0


def test_weighted_f1_of_appendix_b_beside_positive_class_f1() -> None:
    from sklearn.metrics import f1_score

    # Skewed labels: a model that always says "0" has positive-class F1 0 but a high weighted F1.
    gold = ["0"] * 9 + ["1"]
    out = rerank(["m"] * 10, [0.1] * 10, ["0"] * 10, gold, gold)[0]
    assert out.gold["f1"].value == 0.0
    assert out.gold["f1_weighted"].value == pytest.approx(f1_score(gold, ["0"] * 10, average="weighted"))
    assert out.to_json()["f1_weighted_gold"] == pytest.approx(0.9 * 2 * 0.9 / 1.9)
