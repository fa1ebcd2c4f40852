"""The report's triage section: every source as a row, every flagged item with its class and figures."""

from __future__ import annotations

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.results import ItemResult, MemberResult
from stats_cli.report.inputs import AuditData
from stats_cli.report.model import Status
from stats_cli.report.sections.triage import triage_section

CONFIG = """<View><Text name="t" value="$text"/><Choices name="s" toName="t"><Choice value="pos"/>
<Choice value="neg"/><Choice value="neu"/></Choices></View>"""
SPEC = spec_from_label_config(CONFIG, name="sentiment")
LABELS = ["pos", "neg", "neu"]


def _items(flag_every: int) -> tuple[tuple[ItemResult, ...], dict[str, dict[str, str]]]:
    items, crowd = [], {}
    for k in range(45):
        lab = LABELS[k % 3]
        said = LABELS[(k + 1) % 3] if k % flag_every == 0 else lab
        members = (MemberResult("judge:a", probs={lab: 0.9, LABELS[(k + 2) % 3]: 0.1}),
                   MemberResult("judge:b", probs={lab: 0.8, said: 0.2}),
                   MemberResult("cleanlab:tfidf-logreg", probs={lab: 0.6, said: 0.4}))
        items.append(ItemResult(id=str(k), original=said, prediction=lab, confidence=0.85, probs={lab: 0.85},
                                flagged=said != lab, members=members))
        crowd[str(k)] = {"ann1": said, "ann2": said, "ann3": lab}
    return tuple(items), crowd


def test_every_source_is_a_row_and_every_flagged_item_is_triaged():
    items, crowd = _items(5)
    section = triage_section(AuditData(project="p", spec=SPEC, items=items, crowd=crowd))
    assert section.status is Status.OK
    sources, suspects = section.tables[:2]
    assert {r[0] for r in sources.rows} == {"annotator:ann1", "annotator:ann2", "annotator:ann3", "judge:a",
                                            "judge:b", "cleanlab:tfidf-logreg"}
    col = {name: k for k, name in enumerate(sources.columns)}
    assert all(0 <= r[col["low"]] <= r[col["top-1 accuracy"]] <= r[col["high"]] <= 1 for r in sources.rows)
    flagged = {str(it.id) for it in items if it.flagged}
    assert {r[0] for r in suspects.rows} == flagged
    assert {r[1] for r in suspects.rows} <= {"likely error", "ambiguous", "guideline gap"}
    assert section.values["thresholds"]["source"] == "defaults"
    assert any("Thresholds from defaults" in n for n in section.notes)


def test_nothing_flagged_is_pending():
    items, crowd = _items(10_000)
    items = tuple(ItemResult(id=it.id, original=it.prediction, prediction=it.prediction, confidence=0.9,
                             probs=it.probs, flagged=False, members=it.members) for it in items)
    assert triage_section(AuditData(project="p", spec=SPEC, items=items, crowd=crowd)).status is Status.PENDING


# -- a project with the default settings: every single-label question triaged ------------------------------

def _plant_three_class(k: int):
    """Item ``k``'s planted answers: two judges whose answers move with the option order (position bias),
    the confident-learning member asked in the first order only (its answer does not depend on it)."""
    lab = LABELS[k % 3]
    other, third = LABELS[(k + 1) % 3], LABELS[(k + 2) % 3]
    said = other if k % 5 == 0 else lab

    def plant(question, _original):
        first = question.key in ("", "o0")
        out = {"local:judge-a/generic@v1": {lab: 0.9, third: 0.1} if first else {lab: 0.6, other: 0.2, third: 0.2},
               "local:judge-b/generic@v1": {lab: 0.8, other: 0.2} if first else {lab: 0.7, third: 0.3}}
        if first:
            out["cleanlab:tfidf-logreg"] = {lab: 0.6, other: 0.4}
        return out
    return said, plant


def _default_rows(n: int = 45):
    from tests.support.assembled import assembled_row

    rows, crowd = [], {}
    for k in range(n):
        said, plant = _plant_three_class(k)
        rows.append(assembled_row(SPEC, str(k), said, plant))
        crowd[str(k)] = {"ann1": said, "ann2": said, "ann3": LABELS[k % 3]}
    return tuple(rows), crowd


def test_a_default_three_class_project_asked_in_two_option_orders_is_triaged():
    """The default asks a single-choice question in two option orders and keeps each order's verdict in
    ``questions``: one question asked twice, triaged on the members averaged over the orders."""
    from backend.review.triage import judge_figures

    assert len(SPEC.task_family.questions(SPEC)) == 2  # the default: two option orders
    items, crowd = _default_rows()
    flagged = {str(it.id) for it in items if it.flagged}
    assert flagged and all(len(it.questions) == 2 for it in items)  # the ledger's shape under the defaults
    section = triage_section(AuditData(project="p", spec=SPEC, items=items, crowd=crowd))
    assert section.status is Status.OK, section.reason
    sources, suspects = section.tables[:2]
    assert {r[0] for r in suspects.rows} == flagged
    orders = [q.key for q in SPEC.task_family.questions(SPEC)]
    assert not any(key in str(r[0]) for r in sources.rows for key in orders)  # an order is no source
    by_id = {str(it.id): it for it in items}
    for row in suspects.rows:  # the judges' figures are read from the members averaged over both orders
        averaged = {m.member_id: m.probs for m in by_id[row[0]].members}
        assert row[7] == pytest.approx(judge_figures(averaged, LABELS)[0])
        first_order = {m.member_id: m.probs for m in by_id[row[0]].questions[0].members}
        assert row[7] != pytest.approx(judge_figures(first_order, LABELS)[0])


def test_the_engine_s_own_rows_of_a_default_project_are_triaged():
    """Rows scored by the real engine under the default settings (the TEST-ONLY hash judge, asked in both
    option orders, answers differ per order since the prompt does) reach the triage, not NOT APPLICABLE."""
    import json

    from backend.scoring.engine import EngineConfig
    from backend.scoring.members import MemberSpec, build_members
    from backend.scoring.question_engine import make_engine
    from backend.task.dataset import Item
    from tests.backend.hash_provider import HashTestProvider

    provider = HashTestProvider()
    team = build_members([MemberSpec("hash", "h", prompts=("generic-question",))], SPEC,
                         provider_factory=lambda _e: provider)
    items = [Item(f"t{i}", LABELS[i % 3], {"text": f"text number {i}"}) for i in range(30)]
    rows = tuple(ItemResult.from_json(json.loads(json.dumps(r.to_json())))  # as the ledger returns them
                 for r in make_engine(SPEC, team, cache=None, config=EngineConfig(concurrency=1)).score(items))
    assert all(len(r.questions) == 2 for r in rows)  # one verdict per option order kept
    section = triage_section(AuditData(project="p", spec=SPEC, items=rows))
    assert section.status is Status.OK, section.reason
    assert {r[0] for r in section.tables[1].rows} == {str(r.id) for r in rows if r.flagged}


CONTROLS_CONFIG = """<View><Text name="t" value="$text"/>
<Choices name="topic" toName="t"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices>
<Rating name="grade" toName="t" maxRating="5"/></View>"""


def _controls_rows(spec, n: int = 45):
    from tests.support.assembled import assembled_row

    family, rows, crowd = spec.task_family, [], {}
    for k in range(n):
        said, plant_topic = _plant_three_class(k)
        grade, true_grade = str(1 + k % 5), str(1 + (k + 3) % 5) if k % 7 == 0 else str(1 + k % 5)

        def plant(question, original, plant_topic=plant_topic, true_grade=true_grade):
            if question.key.startswith("topic"):
                _control, _, own = question.key.partition("/")
                from backend.task.family import Question
                return plant_topic(Question(own, question.spec, reorders=question.reorders), original)
            near = str(min(int(true_grade) + 1, 5)) if true_grade != "5" else "4"
            return {"local:judge-a/generic@v1": {true_grade: 0.85, near: 0.15},
                    "local:judge-b/generic@v1": {true_grade: 0.75, near: 0.25}}

        original = family.encode_controls(spec, {"topic": said, "grade": grade})
        rows.append(assembled_row(spec, str(k), original, plant))
        truth = family.encode_controls(spec, {"topic": LABELS[k % 3], "grade": true_grade})
        crowd[str(k)] = {"ann1": original, "ann2": original, "ann3": truth}
    return tuple(rows), crowd


def test_a_several_control_project_is_triaged_per_single_label_control():
    from stats_cli.report.build import build_report

    spec = spec_from_label_config(CONTROLS_CONFIG)
    assert spec.family == "controls" and [c.spec.family for c in spec.controls] == ["nominal", "rating"]
    items, crowd = _controls_rows(spec)
    report = build_report(AuditData(project="p", spec=spec, items=items, crowd=crowd))
    for control in ("topic", "grade"):
        section = report.section("triage", control=control)
        assert section.status is Status.OK, (control, section.reason)
        flagged = {str(it.id) for it in items for q in it.questions if q.id == control and q.flagged}
        assert flagged and {r[0] for r in section.tables[1].rows} == flagged
        labels = [c.spec.labels for c in spec.controls if c.name == control][0]
        assert {r[2] for r in section.tables[1].rows} <= set(labels)  # the control's own classes


def test_a_preference_is_a_single_label_question_triaged_on_its_classes():
    """A pairwise control is asked in both orders (``ab``, ``ba``): triaged on left/right like any question."""
    spec = spec_from_label_config("""<View><Text name="a" value="$a"/><Text name="b" value="$b"/>
        <Pairwise name="pw" toName="a,b"/></View>""")
    from tests.support.assembled import assembled_row

    rows, crowd = [], {}
    for k in range(40):
        better = ("left", "right")[k % 2]
        said = ("right", "left")[k % 2] if k % 8 == 0 else better
        worse = "right" if better == "left" else "left"

        def plant(question, _original, better=better, worse=worse):  # the judges lean to the first shown
            lean = 0.1 if (question.key == "ab") == (better == "left") else -0.1
            return {"local:judge-a/generic@v1": {better: 0.8 + lean, worse: 0.2 - lean},
                    "local:judge-b/generic@v1": {better: 0.75 + lean, worse: 0.25 - lean}}
        rows.append(assembled_row(spec, str(k), said, plant))
        crowd[str(k)] = {"ann1": said, "ann2": said, "ann3": better}
    assert all([q.id for q in r.questions] == ["ab", "ba"] for r in rows)
    section = triage_section(AuditData(project="p", spec=spec, items=tuple(rows), crowd=crowd))
    assert section.status is Status.OK, section.reason
    suspects = section.tables[1]
    assert {r[0] for r in suspects.rows} == {str(k) for k in range(0, 40, 8)}
    assert {r[3] for r in suspects.rows} <= {"left", "right"}


def test_multi_label_and_spans_are_not_triaged_and_say_why():
    multi = spec_from_label_config("""<View><Text name="t" value="$text"/><Choices name="s" toName="t"
        choice="multiple"><Choice value="a"/><Choice value="b"/><Choice value="c"/></Choices></View>""")
    spans = spec_from_label_config("""<View><Text name="t" value="$text"/><Labels name="l" toName="t">
        <Label value="PER"/><Label value="ORG"/></Labels></View>""")
    for spec, why in ((multi, "one yes/no question per label"), (spans, "one question per span")):
        section = triage_section(AuditData(project="p", spec=spec, items=()))
        assert section.status is Status.NOT_APPLICABLE and why in section.reason, section.reason


def test_the_triage_is_what_the_lead_reads_in_the_html(tmp_path):
    """The HTML report of a default three-class project and of a several-control one shows the triage (once per
    control there), its words left-aligned; screenshots in artifacts/ (looked at)."""
    from stats_cli.report.build import build_report
    from stats_cli.report.render import render
    from tests.support.browser import ARTIFACTS, headless_chromium

    controls = spec_from_label_config(CONTROLS_CONFIG)
    projects = {"default": (SPEC, *_default_rows()), "controls": (controls, *_controls_rows(controls))}
    with headless_chromium() as browser:
        for name, (spec, items, crowd) in projects.items():
            path = tmp_path / f"{name}.html"
            report = build_report(AuditData(project=name, spec=spec, items=items, crowd=crowd))
            path.write_text(render(report, fmt="html"), encoding="utf-8")
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(path.resolve().as_uri())
            anchors = ["triage"] if name == "default" else ["triage-topic", "triage-grade"]
            for anchor in anchors:
                section = page.locator(f"section#{anchor}")
                text = section.inner_text()
                assert "NOT APPLICABLE" not in text and "Every source's top-1 accuracy" in text
                assert section.locator("td.text", has_text="likely error").count() > 0
                section.screenshot(path=str(ARTIFACTS / f"triage-{name}-{anchor}.png"))
            left_out = page.locator("#not-in-this-report")
            assert left_out.count() == 0 or "Triage" not in left_out.inner_text()


def test_a_judge_model_is_one_row_with_its_top1_accuracy_and_a_bootstrap_interval():
    # Two prompts of one model (member ids provider:model/template@v1) are one source, its prompts averaged;
    # the row reads its top label (its distribution puts 0.7 on it, so the expected agreement of a label drawn
    # from it, the old figure, is at most 0.7; its top label agrees with the posterior on the 36 unflagged items
    # and two annotators outvote it on the 9 flagged ones: 0.8), and the interval comes from refits over resampled items.
    items, crowd = _items(5)
    items = tuple(ItemResult(id=it.id, original=it.original, prediction=it.prediction, confidence=it.confidence,
                             probs=it.probs, flagged=it.flagged,
                             members=tuple(MemberResult(f"local:m/{p}@v1", probs={
                                 it.prediction: 0.7, **{o: 0.15 for o in LABELS if o != it.prediction}})
                                 for p in ("plain", "cot")))
                  for it in items)
    section = triage_section(AuditData(project="p", spec=SPEC, items=items, crowd=crowd))
    sources = section.tables[0]
    col = {name: k for k, name in enumerate(sources.columns)}
    rows = {r[0]: r for r in sources.rows}
    assert set(rows) == {"annotator:ann1", "annotator:ann2", "annotator:ann3", "local:m"}
    assert rows["local:m"][col["gives"]].startswith("distributions")
    assert rows["local:m"][col["labels given"]] == 45
    assert rows["local:m"][col["top-1 accuracy"]] > 0.75
    assert "bootstrap" in sources.title and all(s["interval"].startswith("bootstrap") for s in section.values["sources"])
