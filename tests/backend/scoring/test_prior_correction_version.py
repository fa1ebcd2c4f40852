"""The prior correction is part of a `score` run's model version: two corrections, two versions; none, as before.

A correction re-reads every verdict of the run (:mod:`backend.scoring.prior_shift`), so two runs that differ only
by it must not share a model version. ``none`` must keep the string the code gave before the correction entered
(pinned below, computed by the code of main before this change), so versions already written stay valid.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from backend.cli import app
from backend.scoring.members import ensemble_fingerprint, members_from_args
from backend.scoring.prior_shift import MODES
from backend.task.spec import load_spec
from tests.backend.hash_provider import HashTestProvider

FC = load_spec("factual-consistency")
BEFORE = "4396d3165088"  # ensemble_fingerprint(_members(), FC) on main (8d3a87c) before the correction entered it


def _members():
    return members_from_args(["openai:m@http://127.0.0.1:1/v1"], FC, provider_factory=lambda e: HashTestProvider(
        e.model, params={"base_url": e.base_url, **dict(e.options or {})}))


def test_each_correction_is_its_own_version_and_none_keeps_the_old_one():
    members = _members()
    versions = {mode: ensemble_fingerprint(members, FC, prior_correction=mode) for mode in MODES}
    assert len(set(versions.values())) == len(MODES) == 6
    assert versions["none"] == ensemble_fingerprint(members, FC) == BEFORE


CONFIG = ('<View><Text name="t" value="$text"/><Choices name="c" toName="t"><Choice value="spam"/>'
          '<Choice value="ham"/></Choices></View>')
ITEMS = [{"id": "1", "text": "free money now", "label": "spam"}, {"id": "2", "text": "see you at lunch", "label": "ham"}]


def _score_version(tmp_path: Path, *args: str) -> str:
    data, config, summary = tmp_path / "items.jsonl", tmp_path / "config.xml", tmp_path / "summary.json"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    config.write_text(CONFIG)
    result = CliRunner().invoke(app, ["score", str(data), "--label-config", str(config), "--summary-json",
                                      str(summary), "--no-cache", *args],
                                env={"LABEL_AUDIT_MEMBERS_FILE": None, "LABEL_AUDIT_PRIOR_CORRECTION": None,
                                     "LABEL_AUDIT_MEMBERS": "openai:m@http://127.0.0.1:9/v1",
                                     "LABEL_AUDIT_MAX_ATTEMPTS": "1"})
    assert result.exit_code == 0, result.output
    return json.loads(summary.read_text())["model_version"]


def test_score_runs_with_two_corrections_report_two_versions(tmp_path):
    plain = _score_version(tmp_path)
    assert _score_version(tmp_path, "--prior-correction", "auto") == plain  # the default
    assert len({plain, *(_score_version(tmp_path, "--prior-correction", mode)
                         for mode in ("none", "em", "batch", "given", "fitted"))}) == 6
