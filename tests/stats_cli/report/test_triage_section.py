"""The report's triage section: every source as a row, every flagged item with its class and figures."""

from __future__ import annotations

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
    sources, suspects, _gaps = section.tables
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
