"""Where planted label errors land in the ensemble's ranking: found, ranked first, average precision."""

from __future__ import annotations

import pytest
from sklearn.metrics import average_precision_score

from backend.scoring.planted_ranking import planted_ranking, ranking_sentence, suspicion


def _record(original: str, p_one: float | None, *, planted: bool, flagged: bool = False) -> dict:
    probs = None if p_one is None else {"1": p_one, "0": 1.0 - p_one}
    return {"original": original, "probs": probs, "flagged": flagged, "data": {"planted": planted}}


def test_every_planted_error_ranked_before_the_clean_items_is_ap_one():
    records = [_record("1", 0.1, planted=True, flagged=True), _record("0", 0.8, planted=True, flagged=True),
               _record("1", 0.7, planted=False), _record("0", 0.4, planted=False), _record("1", 0.95, planted=False)]
    figures = planted_ranking(records)
    assert figures == {"items": 5, "scored": 5, "planted": 2, "flagged": 2, "found": 2, "ranked_first": 2,
                       "average_precision": 1.0}
    assert "flagged 2 of 2" in ranking_sentence(figures) and "average precision of the planted errors 1.00" in \
        ranking_sentence(figures)


def test_a_clean_item_ranked_first_lowers_the_ap_as_sklearn_computes_it():
    records = [_record("1", 0.05, planted=False, flagged=True), _record("1", 0.3, planted=True, flagged=True),
               _record("0", 0.2, planted=False), _record("1", 0.6, planted=True), _record("0", None, planted=False)]
    figures = planted_ranking(records)
    scores = [suspicion(r) if suspicion(r) is not None else -1.0 for r in records]
    assert figures["average_precision"] == pytest.approx(
        average_precision_score([False, True, False, True, False], scores))
    assert figures["average_precision"] < 1.0
    assert (figures["scored"], figures["found"], figures["ranked_first"]) == (4, 1, 1)


def test_without_planted_errors_there_is_no_figure():
    figures = planted_ranking([_record("1", 0.9, planted=False), _record("0", 0.1, planted=False)])
    assert figures["average_precision"] is None
    assert ranking_sentence(figures).startswith("No planted errors")
