"""Span agreement (exact and overlap F1) and errors by kind, against hand-counted planted data."""

import pytest

from backend.spans.model import Span
from stats_cli.stats.error_rate import StratumCount, estimate_rate
from stats_cli.stats.span_stats import QuestionOutcome, agreement_by_type, errors_by_kind, errors_by_type, span_agreement

A = [Span(0, 4, "PER"), Span(10, 15, "LOC"), Span(20, 25, "ORG")]
B = [Span(0, 4, "PER"), Span(10, 17, "LOC"), Span(30, 33, "ORG")]


def test_exact_and_overlap_f1():
    got = span_agreement([[A, B]])
    # exact: 1 shared of 3 + 3 -> 2/6; overlap: PER and LOC match on both sides -> 4/6
    assert got.exact_f1 == pytest.approx(2 / 6) and got.overlap_f1 == pytest.approx(4 / 6)
    assert (got.pairs, got.spans) == (1, 6)
    three = span_agreement([[A, A, B]])
    assert three.pairs == 3 and three.exact_f1 == pytest.approx((6 + 2 + 2) / 18)
    assert span_agreement([[A]]).exact_f1 is None
    by_type = agreement_by_type([[A, B]])
    assert by_type["PER"].exact_f1 == 1.0 and by_type["ORG"].overlap_f1 == 0.0


def test_errors_by_kind_uses_the_design():
    outcomes = (
        [QuestionOutcome("type", "PER", True, True, "wrong_type")] * 3
        + [QuestionOutcome("type", "PER", True, True, "")] * 1
        + [QuestionOutcome("type", "LOC", False, True, "")] * 2
        + [QuestionOutcome("type", "LOC", False, False)] * 8
        + [QuestionOutcome("missed", "", True, True, "missed")] * 2
        + [QuestionOutcome("missed", "", False, False)] * 4
    )
    kinds = errors_by_kind(outcomes)
    wrong = kinds["wrong_type"]
    assert (wrong.questions, wrong.flagged, wrong.reviewed_flagged, wrong.confirmed) == (14, 4, 4, 3)
    expected = estimate_rate([StratumCount(4, 4, 3, "flagged"), StratumCount(10, 2, 0, "unflagged")])
    assert wrong.rate.rate == pytest.approx(expected.rate) and wrong.rate.high == pytest.approx(expected.high)
    assert kinds["missed"].rate is None  # the unflagged proposals were never sampled: PENDING
    assert kinds["missed"].confirmed == 2 and kinds["missed"].precision_low > 0.1
    assert kinds["boundary"].questions == 0 and kinds["boundary"].rate is None
    assert errors_by_type(outcomes)["PER"] == {"reviewed": 4, "wrong_type": 3}
