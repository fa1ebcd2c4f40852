"""Leaving a member out: LABEL_AUDIT_EXCLUDE_MEMBERS / --exclude-member / ``exclude:`` in a members file.

Every view of the ensemble leaves it out alike: the members built, the fingerprint the model version
comes from (so excluding changes the version, and the workers' with it), and the judges named in Label
Studio's model version.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.labelstudio.modelname import judges_text
from backend.scoring.members import (build_members, ensemble_fingerprint, exclude_members, member_specs_from_config,
                                     parse_member_arg, spec_fingerprint)
from backend.config.settings import Settings
from backend.task.spec import load_spec
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.hash_provider import HashTestProvider

FC = load_spec("factual-consistency")
QWEN, GEMINI = "openai:qwen@http://127.0.0.1:9/v1", "gemini:flash@http://127.0.0.1:9"


def factory(entry):
    return HashTestProvider(entry.model, params={"base_url": entry.base_url})


def _ids(entries):
    return [m.id for m in build_members(entries, FC, provider_factory=factory)]


def test_a_member_id_leaves_out_that_prompt_of_that_model_only():
    entries = exclude_members([parse_member_arg(QWEN), parse_member_arg(GEMINI)], ["openai:qwen/fc-evidence-claim@v1"])
    ids = _ids(entries)
    assert "openai:qwen/fc-evidence-claim@v1" not in ids and "gemini:flash/fc-evidence-claim@v1" in ids
    assert len(ids) == 7


def test_a_bare_prompt_id_leaves_it_out_for_every_model_and_a_version_must_match():
    both = [parse_member_arg(QWEN), parse_member_arg(GEMINI)]
    assert not any("fc-evidence-claim" in i for i in _ids(exclude_members(both, ["fc-evidence-claim"])))
    assert len(_ids(exclude_members(both, ["fc-evidence-claim@v9"]))) == 8  # another version: nothing left out


@pytest.mark.parametrize("name", ["openai:nope/fc-evidence-claim", "qwen/fc-evidence-claim", "openai:qwen/"])
def test_a_name_that_fits_no_model_is_refused_with_the_models(name):
    with pytest.raises(ValueError, match="exclude"):
        exclude_members([parse_member_arg(QWEN)], [name])


def test_excluding_changes_the_model_version_in_every_view():
    entries = (parse_member_arg(QWEN),)
    left = exclude_members(entries, ["fc-evidence-claim"])
    assert spec_fingerprint(left, FC) != spec_fingerprint(entries, FC)
    assert EnsembleConfig(members=left).model_version(FC) != EnsembleConfig(members=entries).model_version(FC)
    built = build_members(left, FC, provider_factory=factory)
    assert ensemble_fingerprint(built, FC) != ensemble_fingerprint(build_members(entries, FC, provider_factory=factory), FC)
    assert judges_text(left, FC) == "qwen ×3 prompts"
    assert spec_fingerprint(exclude_members(entries, []), FC) == spec_fingerprint(entries, FC)  # nothing: same


def test_the_environment_and_the_option_set_it_and_workers_see_the_same_ensemble():
    env = {"LABEL_AUDIT_MEMBERS": QWEN, "LABEL_AUDIT_EXCLUDE_MEMBERS": "fc-evidence-claim, fc-premise-hypothesis"}
    settings = Settings.from_env(env)
    assert settings.exclude_members == ("fc-evidence-claim", "fc-premise-hypothesis")
    assert settings.members[0].exclude == ("fc-evidence-claim", "fc-premise-hypothesis")
    assert len(_ids(settings.members)) == 2
    option = Settings.from_env(env, exclude_members=("fc-grounding-generated",))  # the option replaces the variable
    assert option.members[0].exclude == ("fc-grounding-generated",)
    config = EnsembleConfig.from_settings(settings)
    assert config.model_version(FC) == EnsembleConfig(members=settings.members).model_version(FC)
    assert config.model_version(FC) != EnsembleConfig.from_settings(Settings.from_env({"LABEL_AUDIT_MEMBERS": QWEN})).model_version(FC)


def test_leaving_out_every_prompt_is_a_clear_error():
    with pytest.raises(ValueError, match="no member.*left out"):
        build_members(exclude_members([parse_member_arg(QWEN)], ["openai:qwen/fc-document-statement",
                                                                  "fc-evidence-claim", "fc-grounding-generated",
                                                                  "fc-premise-hypothesis"]), FC, provider_factory=factory)


def test_a_members_file_entry_can_exclude_and_round_trips(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("- provider: openai\n  model: qwen\n  base_url: http://127.0.0.1:9/v1\n  exclude: [fc-evidence-claim]\n")
    (entry,) = member_specs_from_config(path)
    assert entry.exclude == ("fc-evidence-claim",) and entry.to_dict()["exclude"] == ["fc-evidence-claim"]
    assert "exclude" not in parse_member_arg(QWEN).to_dict()  # no exclusion: the dict is as before
    assert EnsembleConfig.from_dict(EnsembleConfig(members=(entry,)).to_dict()).members == (entry,)


def test_score_takes_exclude_member_and_reports_it(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_AUDIT_EXCLUDE_MEMBERS", raising=False)
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "grounding": "g", "generated_text": "t", "label": 1}) + "\n")
    summary = tmp_path / "s.json"
    result = CliRunner().invoke(app, [
        "score", str(data), "--task", "factual-consistency", "--member", QWEN, "--exclude-member",
        "openai:qwen/fc-evidence-claim@v1", "--dry-run", "--summary-json", str(summary),
        "--cache-url", f"sqlite:///{tmp_path / 'c.sqlite'}"])
    assert result.exit_code == 0, result.output
    members = [row["member"] for row in json.loads(summary.read_text())["dry_run"]["members"]]
    assert len(members) == 3 and "openai:qwen/fc-evidence-claim@v1" not in members
    bad = CliRunner().invoke(app, ["score", str(data), "--task", "factual-consistency", "--member", QWEN,
                                   "--exclude-member", "openai:other/fc-evidence-claim", "--dry-run"])
    assert bad.exit_code == 2 and "no model 'openai:other'" in bad.output
