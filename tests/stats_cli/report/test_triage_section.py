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
    assert all(0 <= r[3] <= r[2] <= r[4] <= 1 for r in sources.rows)
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
