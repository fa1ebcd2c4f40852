"""Settings: resolved once from the environment and options, with views for the engine and the backend."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from backend.commands.context import run_settings
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig

REPO = Path(__file__).resolve().parents[3]


def test_environment_then_options_with_defaults_from_one_module() -> None:
    settings = Settings.from_env({"LABEL_AUDIT_DELTA": "2", "LABEL_AUDIT_THRESHOLD": "0.7",
                                  "LABEL_AUDIT_MEMBERS": "openai:a@http://h:1/v1,local:smollm2"}, threshold=0.9)
    assert settings.threshold == 0.9 and settings.delta == 2  # the option wins, the environment fills in
    assert [m.provider for m in settings.members] == ["openai", "local"]
    # delta reaches both views: the engine (score) and the Label Studio backend/workers
    assert settings.engine_config().delta == 2 and EnsembleConfig.from_settings(settings).delta == 2
    assert Settings.from_env({}).concurrency == 8 and Settings.from_env({}, concurrency=None).concurrency == 8


@pytest.mark.parametrize("env", [{"LABEL_AUDIT_DELTA": "-1"}, {"LABEL_AUDIT_BATCH": "zero"},
                                 {"BASIC_AUTH_USER": "only-user"}, {"LABEL_AUDIT_THRESHOLD": "2"},
                                 {"LABEL_AUDIT_QUORUM": "1.5"}, {"LABEL_AUDIT_QUORUM_MODELS": "maybe"}])
def test_bad_values_are_value_errors(env: dict) -> None:
    with pytest.raises(ValueError):
        Settings.from_env(env)


def test_members_given_as_options_replace_the_environments_and_their_key_is_redacted(tmp_path) -> None:
    members = tmp_path / "m.yaml"
    members.write_text("- {provider: openai, model: m, options: {api_key_env: MY_KEY}}\n")
    env = {"LABEL_AUDIT_MEMBERS_FILE": str(tmp_path / "missing.yaml"), "MY_KEY": "my-key-5555"}
    with pytest.raises(OSError):
        Settings.from_env(env)  # the environment's members are read when no option names members...
    settings = run_settings(members_file=members, env=env)  # ...and not at all when one does
    assert [m.model for m in settings.members] == ["m"] and "my-key-5555" in settings.secrets()
    with pytest.raises(ValueError, match="either --members or --member"):
        run_settings(members_file=members, member=["local:smollm2"], env=env)


def test_secrets_are_listed_for_redaction_and_never_in_repr() -> None:
    env = {"LABEL_STUDIO_API_KEY": "ls-token-123456", "BASIC_AUTH_USER": "u", "BASIC_AUTH_PASS": "pw-987654",
           "OPENAI_API_KEY": "sk-abcdef123456", "MY_KEY": "my-key-5555",
           "LABEL_AUDIT_MEMBERS_FILE": "", "REDIS_URL": "redis://:redis-pass-1@h:6379/0"}
    settings = Settings.from_env(env)
    assert {"ls-token-123456", "pw-987654", "sk-abcdef123456"} <= set(settings.secrets())
    text = repr(settings)
    assert not any(s in text for s in ("ls-token-123456", "pw-987654", "sk-abcdef123456", "redis-pass-1"))


def test_model_version_comes_from_settings_without_building_or_importing_providers() -> None:
    code = (
        "import sys\n"
        "from backend.config.settings import Settings\n"
        "from backend.worker.ensemble_config import EnsembleConfig\n"
        "from backend.labelstudio.labelconfig import label_config_for_spec\n"
        "from backend.task.spec import load_spec\n"
        "config = EnsembleConfig(Settings.from_env({'LABEL_AUDIT_MEMBERS': 'gemini:g,openai:o,local:smollm2'}))\n"
        "version = config.model_version(config.spec(label_config_for_spec(load_spec('factual-consistency'))))\n"
        "loaded = [m for m in ('backend.providers.gemini', 'backend.providers.openai_compat', "
        "'backend.providers.local_gguf', 'google.genai', 'llama_cpp') if m in sys.modules]\n"
        "print(version, loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    version, loaded = done.stdout.split(" ", 1)
    assert version.startswith("label-audit-") and loaded.strip() == "[]"
