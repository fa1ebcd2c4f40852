"""`label-audit score --label-config` says the bare-codes warning before it calls a judge, and again in its summary.

The judge is the TEST-ONLY recording server (tests/support/recording_openai_server.py: not a model, it answers one
fixed class) reached through the real ``openai`` SDK, so the run is the real command path and the test can count
the calls: a dry run prints the warning and makes none.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from backend.cli import app
from tests.support.readable_choices import readable
from tests.support.recording_openai_server import RecordingOpenAIServer

CONFIG = ('<View><Text name="premise" value="$premise"/><Text name="hypothesis" value="$hypothesis"/>{header}'
          '<Choices name="label" toName="hypothesis"><Choice value="e"/><Choice value="n"/><Choice value="c"/>'
          "</Choices></View>")
WARNING = ('<Choices name="label"> shows the judges only bare codes (e, n, c) with no question, hint or guidelines '
           'to read them by')
ROWS = [{"id": "a", "premise": "A dog runs in a park.", "hypothesis": "An animal is outside.", "label": "e"},
        {"id": "b", "premise": "A man sleeps.", "hypothesis": "The man is running a marathon.", "label": "c"}]


def _files(tmp_path: Path, *, header: str = "", with_values: bool = False) -> tuple[Path, Path]:
    config, data = tmp_path / "config.xml", tmp_path / "items.jsonl"
    config.write_text((readable(CONFIG) if with_values else CONFIG).format(header=header))
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return config, data


def _score(tmp_path: Path, config: Path, data: Path, url: str, *extra: str):
    return CliRunner().invoke(app, ["score", str(data), "--label-config", str(config), "--member",
                                    f"openai:recording-judge@{url}", "--option-orders", "1",
                                    "--cache-url", f"sqlite:///{tmp_path / 'c.sqlite'}", *extra])


def _one_line(output: str) -> str:
    return " ".join(output.split())  # rich wraps the sentence at the terminal's width


def test_bare_codes_are_warned_before_the_run_and_in_the_summary(tmp_path, monkeypatch):
    monkeypatch.setenv("LABEL_AUDIT_HOME", str(tmp_path / "home"))
    config, data = _files(tmp_path)
    with RecordingOpenAIServer(answer="A", other="B") as judge:
        dry = _score(tmp_path, config, data, judge.url, "--dry-run", "--summary-json", str(tmp_path / "dry.json"))
        assert dry.exit_code == 0, dry.output
        assert judge.requests == []  # said without a single call
        assert f"Warning: {WARNING}" in _one_line(dry.output)
        saved = json.loads((tmp_path / "dry.json").read_text())
        assert [w["control"] for w in saved["presentation_warnings"]] == ["label"]

        run = _score(tmp_path, config, data, judge.url, "--summary-json", str(tmp_path / "s.json"))
        assert run.exit_code == 0, run.output
        assert judge.requests  # the run did call the judge
    text = _one_line(run.output)
    first, again = text.find(WARNING), text.rfind(WARNING)
    assert -1 < first < text.find("Summary") < again  # before the run, then in the summary after the table
    summary = json.loads((tmp_path / "s.json").read_text())
    (warning,) = summary["presentation_warnings"]
    assert warning["control"] == "label" and warning["codes"] == ["e", "n", "c"]
    assert warning["message"].startswith(WARNING) and 'hint="..." on each Choice.' in warning["message"]


def test_readable_values_and_a_header_question_run_without_the_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("LABEL_AUDIT_HOME", str(tmp_path / "home"))
    config, data = _files(tmp_path, header='<Header value="Does the premise entail the hypothesis?"/>',
                          with_values=True)
    with RecordingOpenAIServer(answer="A", other="B") as judge:
        run = _score(tmp_path, config, data, judge.url, "--summary-json", str(tmp_path / "s.json"))
    assert run.exit_code == 0, run.output
    assert "Warning:" not in run.output and "bare codes" not in run.output
    assert json.loads((tmp_path / "s.json").read_text())["presentation_warnings"] == []
