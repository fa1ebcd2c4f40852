"""The report says it is a snapshot, at its top in every format, while routed items are still open."""

from __future__ import annotations

import json

import pytest

from stats_cli.report.build import build_report
from stats_cli.report.render import render
from stats_cli.report.snapshot import DEFAULT_REFRESH, snapshot_note
from tests.stats_cli.report.builders import planted_audit

REFRESH = "run the demo again"


def test_open_reviews_make_a_snapshot_note_with_the_refresh_command():
    data, _ = planted_audit(reviewed_share=0.5)
    open_items = len(data.routed) - len(data.reviewed())
    assert 0 < open_items < len(data.routed)
    note = snapshot_note(data, refresh=REFRESH)
    assert note is not None and f"{open_items} of {len(data.routed)} items" in note and note.endswith(f"{REFRESH}.")


def test_no_note_once_every_routed_item_is_settled():
    data, _ = planted_audit(reviewed_share=1.0)
    assert len(data.reviewed()) == len(data.routed)
    assert snapshot_note(data) is None
    with pytest.raises(ValueError):
        snapshot_note(data, refresh=" ")


@pytest.mark.parametrize("fmt", ["table", "md", "html", "json"])
def test_the_note_comes_first_in_every_format(fmt):
    data, _ = planted_audit(reviewed_share=0.0)
    note = snapshot_note(data, refresh=DEFAULT_REFRESH)
    report = build_report(data, meta={"snapshot": note, "pull_notes": ["a pull note"]})
    text = render(report, fmt=fmt)
    if fmt == "json":
        assert json.loads(text)["meta"]["snapshot"] == note
        return
    first_section = text.find(report.sections[0].title)
    assert 0 <= text.find("This report is a snapshot") < text.find("a pull note") < first_section
