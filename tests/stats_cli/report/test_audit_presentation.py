"""The report's first section repeats the bare-codes warning the commands said before scoring.

Items are built by hand (their verdicts do not matter here); the spec is derived from a real label config, so the
section reads the same question, hints and guidelines the judges got.
"""

from __future__ import annotations

from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.results import ItemResult, MemberResult
from stats_cli.report.build import build_report
from stats_cli.report.inputs import AuditData
from tests.support.readable_choices import readable

CONFIG = ('<View><Text name="premise" value="$premise"/><Text name="hypothesis" value="$hypothesis"/>{header}'
          '<Choices name="label" toName="hypothesis"><Choice value="e"/><Choice value="n"/><Choice value="c"/>'
          "</Choices></View>")


def _audit(header: str = "", *, config: str = CONFIG) -> dict:
    spec = spec_from_label_config(config.format(header=header))
    items = tuple(ItemResult(id=f"t{i}", original=orig, prediction="e", confidence=0.9,
                             probs={"e": 0.9, "n": 0.05, "c": 0.05}, flagged=orig != "e",
                             members=(MemberResult("local:a/p1", probs={"e": 0.9, "n": 0.05, "c": 0.05},
                                                   method="logprobs"),))
                  for i, orig in enumerate(["e", "n", "c", "e"]))
    report = build_report(AuditData(project="p", spec=spec, items=items), only={"audit"})
    (section,) = report.sections
    return {"notes": section.notes, "values": section.values}


def test_the_audit_section_warns_about_bare_codes_first():
    section = _audit()
    assert section["notes"][0].startswith('Warning: <Choices name="label"> shows the judges only bare codes (e, n, c)')
    assert [w["control"] for w in section["values"]["presentation_warnings"]] == ["label"]


def test_the_audit_section_says_nothing_when_the_project_shows_readable_values_and_asks_a_question():
    section = _audit('<Header value="Does the premise entail the hypothesis?"/>', config=readable(CONFIG))
    assert not any("bare codes" in note for note in section["notes"])
    assert section["values"]["presentation_warnings"] == []
