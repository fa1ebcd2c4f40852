"""Every renderer on one test-built report; HTML is self-contained and opens in headless Chromium."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from stats_cli.report.build import build_report
from stats_cli.report.model import Section, Status, Table
from stats_cli.report.render import render
from tests.stats_cli.report.browser import screenshot_html
from tests.stats_cli.report.builders import planted_audit, with_sample



def test_model_validates_and_json_has_no_nan():
    with pytest.raises(ValueError):
        Section("k", "t", Status.PENDING)  # a pending section must say why
    with pytest.raises(ValueError):
        Table.build("t", ("a", "b"), [(1,)])
    table = Table.build("t", ("a",), [(float("nan"),)])
    assert table.rows[0][0] is None


def test_json_and_markdown_and_table_carry_the_same_numbers():
    data, _ = planted_audit()
    report = build_report(data)
    doc = json.loads(render(report, fmt="json"))
    keys = [s["key"] for s in doc["sections"]]
    assert keys[:3] == ["audit", "experts", "errors"] and keys.index("confidence") > 2
    errors = next(s for s in doc["sections"] if s["key"] == "errors")
    assert errors["status"] == "ok" and errors["values"]["reviewed"]["n_errors"] == 9
    md = render(report, fmt="md")
    assert "## Label errors" in md and "| floor: confirmed errors / N (%) | 22.5" in md
    assert "| error rate over the N items (%) | PENDING |" in md  # no random sample drawn here
    text = render(report, fmt="table")
    assert "Label errors" in text and "NOT APPLICABLE: no --models file given" in text
    with pytest.raises(ValueError):
        render(report, fmt="pdf")


def test_pending_sections_say_why_in_every_format():
    data, _ = planted_audit(reviewed_share=0.0)
    report = build_report(data)
    for fmt in ("table", "md", "html"):
        assert "PENDING: no expert decision is settled yet" in render(report, fmt=fmt)
    doc = json.loads(render(report, fmt="json"))
    assert next(s for s in doc["sections"] if s["key"] == "errors")["status"] == "pending"


def _html(tmp_path: Path) -> Path:
    data, truth = planted_audit(crowd=True)
    data, _ = with_sample(data, truth, design="stratified", budget=15)  # the gold-based plots need a control sample
    html = render(build_report(data), fmt="html")
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_html_is_one_self_contained_file_with_the_four_plots(tmp_path):
    html = _html(tmp_path).read_text()
    assert not re.search(r"(src|href)=['\"](https?:|//)", html)  # nothing fetched from anywhere
    figures = dict(re.findall(r"data-figure='([a-z_]+)' src='data:image/png;base64,([^']+)'", html))
    # per-model who-is-right: 11 reviewed disagreements per model fill one bin (≥ 10 items), no line to draw
    assert set(figures) == {"who_is_right", "reliability", "ensemble_size", "ensemble_size_gold"}
    assert "no line to draw" in html
    for payload in figures.values():
        assert base64.b64decode(payload)[:8] == b"\x89PNG\r\n\x1a\n"


def test_html_opens_in_headless_chromium_and_is_screenshotted(tmp_path):
    shot = screenshot_html(_html(tmp_path), "report-html-planted.png", figures=4)
    print(f"HTML report screenshot: {shot}")


def test_pull_notes_reach_every_format():
    data, _ = planted_audit()
    report = build_report(data, meta={"pull_notes": ["--models m.csv: skipped line 3: score 'x' is not a number"]})
    for fmt in ("table", "md", "html", "json"):
        assert "line 3" in render(report, fmt=fmt)
