"""Verdicts -> prediction regions; expert spans -> answers by offsets; gold spans."""

from backend.labelstudio.scoreview import suspect_marker
from backend.spans.assemble import Verdict, item_score, predicted_spans, prediction_result
from backend.spans.gold_spans import question_gold, gold_spans
from backend.spans.lsresult import read_spans
from backend.spans.model import NOT_AN_ENTITY, Span
from backend.spans.questions import build_questions
from backend.spans.review import OTHER_EXTENT, expert_answers, reconcile_lines, split_questions

TEXT = "Paris met Anna Lee in Paris"
PARIS1, PARIS2 = Span(0, 5, "LOC", "Paris"), Span(22, 27, "LOC", "Paris")
ANNA, ANNA_LEE = Span(10, 14, "PER", "Anna"), Span(10, 18, "PER", "Anna Lee")
QUESTIONS = build_questions([PARIS1, ANNA], [PARIS2, ANNA_LEE])
MV = "label-audit-test"


def verdicts(**flags):
    base = {
        "type:0-5:LOC": Verdict("PER", 0.9, True),  # wrong type
        "type:10-14:PER": Verdict("PER", 0.8, False),
        "missed:22-27": Verdict("LOC", 0.7, True),  # missed
        "boundary:10-14|10-18": Verdict("extent 2", 0.95, True),  # boundary
    }
    base.update(flags)
    return base


def test_prediction_regions_scores_and_suspect_markers():
    spans = predicted_spans(QUESTIONS, verdicts())
    assert [(p.span.extent, p.span.label, p.kind) for p in spans] == [
        ((0, 5), "PER", "wrong_type"), ((10, 18), "PER", "boundary"), ((22, 27), "LOC", "missed")]
    assert item_score(spans) == 0.95
    result = prediction_result(spans, control="label", to_name="text", model_version=MV)
    assert all(r["id"].startswith(suspect_marker(MV)) for r in result)
    assert len({r["id"] for r in result}) == 3
    assert read_spans(result, TEXT, control="label").spans == tuple(p.span for p in spans)


def test_unverified_proposals_never_enter_the_prediction():
    spans = predicted_spans(QUESTIONS, verdicts(**{"missed:22-27": Verdict(NOT_AN_ENTITY, 0.6, False),
                                                   "boundary:10-14|10-18": Verdict("extent 1", 0.7, False)}))
    assert (22, 27) not in [p.span.extent for p in spans]
    assert (10, 14) in [p.span.extent for p in spans]
    unjudged = predicted_spans(QUESTIONS, {})
    assert [p.span for p in unjudged] == [PARIS1, ANNA]  # the annotators' spans stand, no proposal


def test_not_an_entity_keeps_the_doubted_span_marked():
    spans = predicted_spans(QUESTIONS, verdicts(**{"type:0-5:LOC": Verdict(NOT_AN_ENTITY, 0.9, True)}))
    doubted = [p for p in spans if p.span.extent == (0, 5)][0]
    assert doubted.flagged and doubted.kind == "not_an_entity" and doubted.span.label == "LOC"
    region = prediction_result([doubted], control="label", to_name="text", model_version=MV)[0]
    assert region["meta"] == {"text": ["not an entity"]}


def test_expert_spans_answer_questions_by_offsets():
    a = expert_answers(QUESTIONS, [Span(0, 5, "PER", "Paris"), ANNA_LEE])
    assert a == {"type:0-5:LOC": "PER", "type:10-14:PER": "PER", "missed:22-27": NOT_AN_ENTITY,
                 "boundary:10-14|10-18": "extent 2"}
    b = expert_answers(QUESTIONS, [PARIS1, Span(10, 13, "PER", "Ann"), PARIS2])
    assert b["boundary:10-14|10-18"] == OTHER_EXTENT and b["missed:22-27"] == "LOC"
    split = split_questions(QUESTIONS, [a, b])
    assert {q.qid for q in split} == {"type:0-5:LOC", "missed:22-27", "boundary:10-14|10-18"}
    lines = reconcile_lines(QUESTIONS, [a, b], TEXT, names=["Expert A", "Expert B"])
    assert "«Paris» met" in lines and "Expert A: PER · Expert B: LOC" in lines
    assert "Expert A: PER over «Anna Lee» · Expert B: another extent" in lines


def test_gold_follows_the_rule_and_applies_answers():
    expert = [{"type:0-5:LOC": "PER", "missed:22-27": "LOC", "boundary:10-14|10-18": "extent 2"}] * 2
    flags = {"type:0-5:LOC": True, "type:10-14:PER": False, "missed:22-27": True, "boundary:10-14|10-18": True}
    golds = {q.qid: question_gold(q, flagged=flags[q.qid], expert=expert) for q in QUESTIONS}
    assert golds["type:10-14:PER"].source == "original" and golds["type:0-5:LOC"].source == "experts"
    spans, complete = gold_spans(QUESTIONS, golds)
    assert complete
    assert spans == (Span(0, 5, "PER", "Paris"), Span(10, 18, "PER", "Anna Lee"), PARIS2)
    split = [{"type:0-5:LOC": "PER"}, {"type:0-5:LOC": NOT_AN_ENTITY}]
    q = QUESTIONS[0]
    assert question_gold(q, flagged=True, expert=split).source == "pending"
    assert question_gold(q, flagged=True, expert=split, reconciled={q.qid: NOT_AN_ENTITY}).answer == NOT_AN_ENTITY
    pending = {q.qid: question_gold(q, flagged=True, expert=split)}
    assert gold_spans(QUESTIONS[:1], pending) == ((PARIS1,), False)


def test_a_span_list_too_long_for_the_ledger_is_refused_with_the_reason():
    from backend.spans.engine import too_long
    from backend.spans.value import encode_spans

    text = " ".join(f"Name{i:02d}" for i in range(40))
    long = encode_spans([Span(7 * i, 7 * i + 6, "PER", text[7 * i:7 * i + 6]) for i in range(20)])
    short = encode_spans([Span(0, 6, "PER", text[:6])])
    assert len(long) > 255 and too_long(short, short) is None
    assert "original span list takes more than the 255 characters" in too_long(long, short)
    assert "original and prediction" in too_long(long, long)


def test_a_flagged_boundary_moves_the_span_when_the_type_doubt_is_not_confident():
    """An unflagged "not an entity" on the type question is no finding: the annotator's type stands, and a flagged
    boundary still moves the span (bench/simulate found the move dropped and the item's gold keeping the original
    extent, so a flagged boundary question was read as no error)."""
    spans = predicted_spans(QUESTIONS, verdicts(**{"type:10-14:PER": Verdict(NOT_AN_ENTITY, 0.44, False)}))
    anna = [p for p in spans if p.span.start == 10]
    assert [(p.span.extent, p.span.label, p.flagged, p.kind) for p in anna] == [((10, 18), "PER", True, "boundary")]
    assert anna[0].confidence == 0.95
