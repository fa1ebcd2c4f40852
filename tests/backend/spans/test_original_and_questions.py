"""Original spans by per-span majority; questions per human span, missed proposal and boundary."""

from backend.spans.model import NOT_AN_ENTITY, Span
from backend.spans.original import original_spans
from backend.spans.questions import build_questions, count_by_kind, question_fields

TEXT = "Paris met Anna Lee in Paris"
PARIS1, PARIS2 = Span(0, 5, "LOC", "Paris"), Span(22, 27, "LOC", "Paris")
ANNA = Span(10, 14, "PER", "Anna")
ANNA_LEE = Span(10, 18, "PER", "Anna Lee")


def test_majority_keeps_spans_more_than_half_marked():
    three = original_spans([[PARIS1, ANNA], [PARIS1], [PARIS1, ANNA_LEE]])
    assert three.spans == (PARIS1,)
    assert set(three.minority) == {ANNA, ANNA_LEE}
    two = original_spans([[PARIS1, ANNA], [ANNA]])
    assert two.spans == (ANNA,) and two.minority == (PARIS1,)
    assert original_spans([[ANNA]]).spans == (ANNA,)
    assert original_spans([]).annotators == 0


def test_questions_of_each_kind():
    proposals = [PARIS1, PARIS2, Span(10, 18, "PER", "Anna Lee"), Span(10, 14, "LOC", "Anna")]
    questions = build_questions([PARIS1, ANNA], proposals)
    kinds = count_by_kind(questions)
    assert kinds == {"type": 2, "missed": 1, "boundary": 1}
    missed = [q for q in questions if q.kind == "missed"][0]
    assert missed.span.extent == (22, 27) and missed.original == NOT_AN_ENTITY
    boundary = [q for q in questions if q.kind == "boundary"][0]
    assert boundary.qid == "boundary:10-14|10-18"
    assert [e.text for e in boundary.extents] == ["Anna", "Anna Lee"] and boundary.original == "extent 1"
    # the repeated word: the question marks which occurrence is meant
    assert question_fields(missed, TEXT)["text"] == "Paris met Anna Lee in «Paris»"
    assert len({q.qid for q in questions}) == len(questions)


def test_boundary_original_follows_text_order():
    wide = Span(10, 18, "PER", "Anna Lee")
    q = [x for x in build_questions([wide], [Span(15, 18, "PER", "Lee")]) if x.kind == "boundary"][0]
    assert [e.text for e in q.extents] == ["Anna Lee", "Lee"] and q.original == "extent 1"
    q = [x for x in build_questions([Span(15, 18, "PER", "Lee")], [wide]) if x.kind == "boundary"][0]
    assert q.original == "extent 2"


def test_question_ids_parse_back_to_their_questions():
    from backend.spans.questions import parse_qid

    for q in build_questions([PARIS1, ANNA], [PARIS2, ANNA_LEE]):
        back = parse_qid(q.qid)
        assert (back.kind, back.span.extent, back.original, back.qid) == (q.kind, q.span.extent, q.original, q.qid)
