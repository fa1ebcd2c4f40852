"""Ensemble members from --member arguments, YAML files and the default; the ensemble fingerprint."""

from __future__ import annotations

import pytest

from backend.scoring.members import (
    Member,
    default_members,
    ensemble_fingerprint,
    members_from_args,
    members_from_config,
    parse_member_arg,
)
from backend.task.spec import load_spec, spec_from_mapping
from tests.backend.hash_provider import HashTestProvider

FC = load_spec("factual-consistency")


def factory(entry):
    return HashTestProvider(entry.model, params={"base_url": entry.base_url, **dict(entry.options or {})})


def test_parse_member_arg():
    m = parse_member_arg("openai:qwen@http://127.0.0.1:8000/v1")
    assert (m.provider, m.model, m.base_url, m.prompts) == ("openai", "qwen", "http://127.0.0.1:8000/v1", None)
    assert parse_member_arg("gemini:gemini-2.0-flash").base_url is None
    assert parse_member_arg("openai:org/model-7b").model == "org/model-7b"
    for bad in ("openai", "openai:", ":model", "open ai:x"):
        with pytest.raises(ValueError):
            parse_member_arg(bad)


def test_each_member_arg_adds_every_prompt():
    members = members_from_args(["openai:gpt-4o-mini", "openai:qwen@http://127.0.0.1:8000/v1"], FC,
                                provider_factory=factory)
    assert len(members) == 8
    assert members[0].id == "openai:gpt-4o-mini/fc-document-statement@v1"
    assert {m.kind for m in members} == {"openai"} and members[4].model == "qwen"
    # One provider per model entry, shared by its prompts.
    assert len({id(m.provider) for m in members}) == 2


def test_real_registry_builds_openai_and_gemini_members(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    members = members_from_args(["openai:qwen@http://127.0.0.1:9/v1", "gemini:gemini-2.0-flash@http://127.0.0.1:9"], FC)
    assert [m.provider.name for m in members] == ["openai"] * 4 + ["gemini"] * 4
    with pytest.raises(ValueError, match="API key"):
        members_from_args(["openai:gpt-4o-mini"], FC)  # no key, no local base_url


def test_members_from_yaml(tmp_path):
    path = tmp_path / "members.yaml"
    path.write_text(
        "- provider: openai\n  model: qwen\n  base_url: http://127.0.0.1:8000/v1\n  prompts: all\n"
        "- provider: gemini\n  model: flash\n  prompts: [fc-evidence-claim, fc-premise-hypothesis]\n"
        "  options: {temperature: 0}\n"
    )
    members = members_from_config(path, FC, provider_factory=factory)
    assert [m.id for m in members][4:] == ["gemini:flash/fc-evidence-claim@v1", "gemini:flash/fc-premise-hypothesis@v1"]
    assert members[4].provider.params == {"base_url": None, "temperature": 0}
    path.write_text("members:\n  - {provider: local, model: smollm2, prompts: fc-evidence-claim}\n")
    assert [m.id for m in members_from_config(path, FC, provider_factory=factory)] == ["local:smollm2/fc-evidence-claim@v1"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("[]", "non-empty"),
        ("- {model: x}", "provider"),
        ("- {provider: openai, model: x, prompts: [nope]}", "unknown prompt"),
        ("- {provider: openai, model: x, colour: red}", "unknown member keys"),
        ("- {provider: openai, model: x, options: [1]}", "options"),
        ("- {provider: openai, model: x}\n- {provider: openai, model: x}", "duplicate"),
    ],
)
def test_bad_member_files(tmp_path, text, message):
    path = tmp_path / "m.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        members_from_config(path, FC, provider_factory=factory)


def test_default_is_smollm2_with_every_prompt():
    seen = []
    members = default_members(FC, provider_factory=lambda e: seen.append(e) or HashTestProvider(e.model))
    assert [(e.provider, e.model) for e in seen] == [("local", "smollm2")]
    assert [m.id.split("/")[0] for m in members] == ["local:smollm2"] * 4


def test_fingerprint_is_stable_and_sensitive():
    a = members_from_args(["openai:m@http://127.0.0.1:1/v1"], FC, provider_factory=factory)
    b = members_from_args(["openai:m@http://127.0.0.1:1/v1"], FC, provider_factory=factory)
    assert ensemble_fingerprint(a, FC) == ensemble_fingerprint(b, FC) == ensemble_fingerprint(a[::-1], FC)
    assert len(ensemble_fingerprint(a, FC)) == 12
    other_url = members_from_args(["openai:m@http://127.0.0.1:2/v1"], FC, provider_factory=factory)
    assert ensemble_fingerprint(other_url, FC) != ensemble_fingerprint(a, FC)
    assert ensemble_fingerprint(a[:3], FC) != ensemble_fingerprint(a, FC)
    renamed = spec_from_mapping({**FC.to_dict(), "name": "fc2"})
    assert ensemble_fingerprint(a, renamed) != ensemble_fingerprint(a, FC)


def test_member_id_shape_is_checked():
    template = default_members(FC, provider_factory=lambda e: HashTestProvider())[0].template
    with pytest.raises(ValueError):
        Member("no-colon", HashTestProvider(), template)
    m = Member("openai:org/model/fc-x@v1", HashTestProvider(), template)
    assert (m.kind, m.model) == ("openai", "org/model")
