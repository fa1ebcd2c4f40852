"""An item's gold spans keep every finding when several questions touch one span (issue 39).

Why: the gold was rebuilt from the prediction, which keeps one error kind per span, so a span both moved
and retyped came back unchanged, a moved span beside a "not an entity" doubt kept its old extent, and a
missed entity inside a moved span was added a second time; sync-gold wrote that gold back to Label Studio.
"""

from __future__ import annotations

from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.outcome import GoldStatus, decide_outcome
from backend.scoring.results import ItemResult
from backend.spans.assemble import Verdict, predicted_spans
from backend.spans.engine import predicted_value
from backend.spans.gold_spans import QuestionGold, gold_spans, item_gold
from backend.spans.model import NOT_AN_ENTITY, Span
from backend.spans.questions import build_questions
from backend.spans.score_spans import SpanVerdict
from backend.spans.value import decode_spans, encode_spans

TEXT = "Paris met Anna Lee in Paris"
PARIS1, PARIS2 = Span(0, 5, "LOC", "Paris"), Span(22, 27, "LOC", "Paris")
ANNA, LEE = Span(10, 14, "PER", "Anna"), Span(15, 18, "PER", "Lee")
ANNA_LEE, ANNA_LEE_IN = Span(10, 18, "PER", "Anna Lee"), Span(10, 21, "PER", "Anna Lee in")
CONFIG = ('<View><Text name="text" value="$text"/><Labels name="label" toName="text">'
          '<Label value="PER"/><Label value="ORG"/><Label value="LOC"/></Labels></View>')


def audited(original, proposals, verdicts):
    """(prediction spans, stored (question id, flagged) pairs) of one item judged as ``verdicts`` say."""
    questions = build_questions(original, proposals)
    assert set(verdicts) <= {q.qid for q in questions}
    answered = {q.qid: verdicts.get(q.qid, Verdict(q.original, 0.9, False)) for q in questions}
    return predicted_spans(questions, answered), [(qid, v.flagged) for qid, v in answered.items()]


def both_ways(original, proposals, verdicts, resolution):
    """The item's gold from its stored questions, and from its prediction alone (an older ledger)."""
    predicted, asked = audited(original, proposals, verdicts)
    return item_gold(original, predicted, resolution, asked), item_gold(original, predicted, resolution)


def test_a_span_moved_and_retyped_comes_back_once_with_both():
    gold, from_prediction = both_ways([ANNA], [ANNA_LEE], {"type:10-14:PER": Verdict("ORG", 0.9, True),
                                                           "boundary:10-14|10-18": Verdict("extent 2", 0.95, True)},
                                      [Span(10, 18, "ORG", "Anna Lee")])
    assert gold == from_prediction == (Span(10, 18, "ORG", "Anna Lee"),)


def test_a_span_doubted_as_no_entity_still_takes_the_extent_the_experts_marked():
    verdicts = {"type:10-14:PER": Verdict(NOT_AN_ENTITY, 0.9, True),
                "boundary:10-14|10-18": Verdict("extent 2", 0.8, True)}
    gold, _ = both_ways([PARIS1, ANNA], [ANNA_LEE], verdicts, [PARIS1, ANNA_LEE])
    assert gold == (PARIS1, ANNA_LEE)
    removed, _ = both_ways([PARIS1, ANNA], [ANNA_LEE], verdicts, [PARIS1])
    assert removed == (PARIS1,)


def test_not_an_entity_wins_over_a_boundary_answer():
    questions = build_questions([ANNA], [ANNA_LEE])
    golds = {"type:10-14:PER": QuestionGold("type:10-14:PER", NOT_AN_ENTITY, "reconciliation"),
             "boundary:10-14|10-18": QuestionGold("boundary:10-14|10-18", "extent 2", "experts")}
    assert gold_spans(questions, golds) == ((), True)


def test_two_missed_entities_at_different_places_are_both_added():
    gold, from_prediction = both_ways([ANNA], [PARIS1, PARIS2], {"missed:0-5": Verdict("LOC", 0.9, True),
                                                                 "missed:22-27": Verdict("LOC", 0.8, True)},
                                      [PARIS1, ANNA, PARIS2])
    assert gold == from_prediction == (PARIS1, ANNA, PARIS2)


def test_a_missed_entity_inside_a_moved_span_is_that_span():
    verdicts = {"boundary:10-14|10-18": Verdict("extent 2", 0.95, True), "missed:15-18": Verdict("PER", 0.7, True)}
    gold, from_prediction = both_ways([ANNA], [ANNA_LEE, LEE], verdicts, [ANNA_LEE])
    assert gold == from_prediction == (ANNA_LEE,)
    two, _ = both_ways([ANNA], [ANNA_LEE, LEE], verdicts, [ANNA, LEE])  # the experts saw two people
    assert two == (ANNA, LEE)


def test_several_boundaries_on_one_span_the_surest_moves_it_and_an_unflagged_one_undoes_nothing():
    verdicts = {"boundary:10-14|10-18": Verdict("extent 2", 0.95, True),
                "boundary:10-14|10-21": Verdict("extent 2", 0.6, True)}
    predicted, _ = audited([ANNA], [ANNA_LEE, ANNA_LEE_IN], verdicts)
    assert [p.span for p in predicted] == [ANNA_LEE]
    gold, from_prediction = both_ways([ANNA], [ANNA_LEE, ANNA_LEE_IN],
                                      {"boundary:10-14|10-18": Verdict("extent 2", 0.95, True)}, [ANNA_LEE])
    assert gold == from_prediction == (ANNA_LEE,)


def test_the_review_outcome_hands_the_stored_questions_to_the_gold():
    spec = spec_from_label_config(CONFIG)
    original = [PARIS1, ANNA]
    questions = build_questions(original, [ANNA_LEE])
    verdicts = {"type:0-5:LOC": Verdict("LOC", 0.9, False), "type:10-14:PER": Verdict(NOT_AN_ENTITY, 0.9, True),
                "boundary:10-14|10-18": Verdict("extent 2", 0.8, True)}
    staged = SpanVerdict("t1", questions, {}, predicted_spans(questions, verdicts))
    parts = tuple(ItemResult(id=q.qid, original=q.original, prediction=verdicts[q.qid].prediction,
                             confidence=verdicts[q.qid].confidence, probs=None, flagged=verdicts[q.qid].flagged)
                  for q in questions)
    result = ItemResult(id="t1", original=encode_spans(original), prediction=predicted_value(staged),
                        confidence=0.9, probs=None, flagged=True, questions=parts)
    experts = encode_spans([PARIS1, ANNA_LEE])
    outcome = decide_outcome(result, spec, experts=["a", "b"], round1={"a": experts, "b": experts}, routed=True)
    assert outcome.status is GoldStatus.EXPERTS_AGREE
    assert decode_spans(outcome.gold) == (PARIS1, ANNA_LEE)


def test_an_entity_the_experts_marked_at_an_unflagged_proposal_is_theirs_as_before():
    """The stored questions include the unflagged proposals; they do not hide what the experts marked there (the
    prediction-only rebuild never saw them: bench/simulate's gold matched the truth on more items that way)."""
    gold, from_prediction = both_ways([ANNA], [PARIS1, PARIS2], {"missed:0-5": Verdict("LOC", 0.9, True)},
                                      [PARIS1, ANNA, PARIS2])
    assert gold == from_prediction == (PARIS1, ANNA, PARIS2)
