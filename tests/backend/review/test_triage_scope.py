"""``review push`` triages every single-label question: the default project (two option orders) and each
control of a several-control project, on rows the families assemble as the engine does."""

from __future__ import annotations

from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.triage import AMBIGUOUS, GUIDELINE_GAP, LIKELY_ERROR, triage_items
from backend.review.triage_route import held_lines, route_suspects
from backend.review.triage_scope import triage_scopes
from backend.task.family import Question
from tests.support.assembled import assembled_row

LABELS = ["pos", "neg", "neu"]
SPEC = spec_from_label_config("""<View><Text name="t" value="$text"/><Choices name="s" toName="t">
<Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>""")
CONTROLS = spec_from_label_config("""<View><Text name="t" value="$text"/>
<Choices name="topic" toName="t"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices>
<Rating name="grade" toName="t" maxRating="5"/></View>""")
JUDGES = ("local:judge-a/generic@v1", "local:judge-b/generic@v1")
THRESHOLD = 0.4  # the unsure judges' suspects lean 0.45 to another label
N_ITEMS = 45


def _topic(k: int, kind: str):
    """(original, plant) of a three-class item: ``wrong`` (judges sure of another label), ``unsure`` (judges
    lean to another label, soft), ``clear``; each judge answers a little differently in each order."""
    lab, other, third = LABELS[k % 3], LABELS[(k + 1) % 3], LABELS[(k + 2) % 3]
    by_kind = {"wrong": ({other: 0.99, lab: 0.01}, {other: 0.98, third: 0.02}),
               "unsure": ({other: 0.5, lab: 0.3, third: 0.2}, {other: 0.4, lab: 0.32, third: 0.28}),
               "clear": ({lab: 0.97, other: 0.03}, {lab: 0.95, third: 0.05})}
    first, second = by_kind[kind]

    def plant(question: Question, _original):
        own = question.key.rpartition("/")[2]
        return {j: first if own in ("", "o0") else second for j in JUDGES}
    return lab, plant


def _kind(k: int) -> str:
    return "wrong" if k < 3 else "unsure" if k < 9 else "clear"


def test_push_routing_triages_a_default_three_class_project():
    """Two option orders (the default) keep each order's verdict in ``questions``; the push used to send every
    suspect untriaged there. Now its classes are the report's, read on the members averaged over the orders."""
    assert len(SPEC.task_family.questions(SPEC)) == 2
    rows = []
    for k in range(N_ITEMS):
        original, plant = _topic(k, _kind(k))
        rows.append(assembled_row(SPEC, str(k), original, plant, threshold=THRESHOLD))
    candidates = [r for r in rows if r.flagged]
    assert {str(r.id) for r in candidates} == {str(k) for k in range(9)} and all(r.questions for r in rows)
    sent, block = route_suspects(rows, candidates, spec=SPEC, include_ambiguous=False)
    assert block["classes"][LIKELY_ERROR] == 3 and "not_applied" not in block
    assert {str(r.id) for r in sent} == {"0", "1", "2"}
    assert {t["item"] for t in block["held"]} == {str(k) for k in range(3, 9)}
    assert {t["class"] for t in block["held"]} <= {AMBIGUOUS, GUIDELINE_GAP}
    report_view = triage_items(rows, labels=LABELS)
    assert {t.item: t.klass for t in report_view.items} == {
        **{t["item"]: t["class"] for t in block["held"]}, **{str(k): LIKELY_ERROR for k in range(3)}}
    assert any("held back for the lead (6;" in line for line in held_lines(block))


def _controls_rows():
    family, rows = CONTROLS.task_family, []
    for k in range(N_ITEMS):
        topic = "wrong" if k < 3 else "unsure" if k < 9 else "clear"
        grade_wrong = 6 <= k < 9  # unsure on the topic, but the grade is plainly wrong: a likely error
        original_topic, plant_topic = _topic(k, topic)
        grade = "1" if grade_wrong else str(1 + k % 5)
        judged = "5" if grade_wrong else grade

        def plant(question: Question, original, plant_topic=plant_topic, judged=judged):
            if question.key.startswith("topic"):
                return plant_topic(question, original)
            near = "4" if judged == "5" else str(int(judged) + 1)
            return {JUDGES[0]: {judged: 0.95, near: 0.05}, JUDGES[1]: {judged: 0.9, near: 0.1}}

        value = family.encode_controls(CONTROLS, {"topic": original_topic, "grade": grade})
        rows.append(assembled_row(CONTROLS, str(k), value, plant, threshold=THRESHOLD))
    return rows


def test_push_routing_triages_each_single_label_control_on_its_own_classes():
    rows = _controls_rows()
    scopes, skipped = triage_scopes(CONTROLS, rows, crowd={}, anchors={})
    assert [(s.control, s.labels) for s in scopes] == [("topic", tuple(LABELS)), ("grade", ("1", "2", "3", "4", "5"))]
    assert not skipped and all(r.original in s.labels for s in scopes for r in s.results)
    candidates = [r for r in rows if r.flagged]
    sent, block = route_suspects(rows, candidates, spec=CONTROLS, include_ambiguous=False)
    assert block["controls"]["topic"]["classes"][LIKELY_ERROR] == 3
    assert block["controls"]["grade"]["classes"] == {LIKELY_ERROR: 3, AMBIGUOUS: 0, GUIDELINE_GAP: 0}
    # held only where every flagged control is held: 3-5 (topic unsure); 6-8 have a plainly wrong grade
    assert {t["item"] for t in block["held"]} == {"3", "4", "5"}
    assert {t["control"] for t in block["held"]} == {"topic"}
    assert {str(r.id) for r in sent} == {"0", "1", "2", "6", "7", "8"}
    lines = held_lines(block)
    assert any(line.startswith("topic: triage (3 likely error") for line in lines)
    assert any(line.startswith("grade: triage (3 likely error") for line in lines)
    everything, _ = route_suspects(rows, candidates, spec=CONTROLS, include_ambiguous=True)
    assert everything == candidates


def test_multi_label_is_not_triaged_and_the_push_says_why():
    multi = spec_from_label_config("""<View><Text name="t" value="$text"/><Choices name="s" toName="t"
        choice="multiple"><Choice value="a"/><Choice value="b"/><Choice value="c"/></Choices></View>""")
    rows = [assembled_row(multi, str(k), '["a"]', lambda q, _o: {JUDGES[0]: {"yes": 0.9, "no": 0.1}})
            for k in range(4)]
    sent, block = route_suspects(rows, rows, spec=multi, include_ambiguous=False)
    assert sent == rows and "one yes/no question per label" in block["not_applied"]
    assert held_lines(block)[0].startswith("triage not applied: ")
