"""OPENAI_API_KEY / GEMINI_API_KEY go only to their own clouds; a custom base_url gets the key its member
names in ``options.api_key_env``, or none. Checked with a real local listener recording the headers.

The keys go the way a run's go: read from the environment by ``Settings.from_env`` (an edge), handed to the
provider as ``Settings.provider_settings()``; the provider itself reads no environment."""

from __future__ import annotations

import pytest

from backend.config.settings import Settings
from backend.providers.base import ProviderError
from backend.providers.registry import make_provider
from backend.scoring.members import MemberSpec
from tests.backend.security.listener import Listener

OPENAI_KEY = "sk-openai-secret-0123456789abcdefDONOTSEND"
OWN_KEY = "own-server-key-0123456789"


def _provider(env: dict[str, str], kind: str, model: str, *, base_url: str | None = None, options=None):
    """The member's provider as a run builds it: its settings resolved from ``env`` at the edge, then passed down."""
    entry = MemberSpec(provider=kind, model=model, base_url=base_url, options=dict(options or {}))
    settings = Settings.from_env(env, members=(entry,))
    return make_provider(kind, model, base_url=base_url, options=options, settings=settings.provider_settings())


def _call(provider) -> None:
    with pytest.raises(ProviderError):
        provider.classify("Answer: ", ["0", "1"], timeout=10)


def _sent(listener: Listener) -> str:
    assert listener.requests, "the provider never called the listener"
    return " ".join(f"{k}: {v}" for r in listener.requests for k, v in r["headers"].items())


def test_openai_key_is_not_sent_to_a_custom_base_url() -> None:
    with Listener(status=400) as listener:
        _call(_provider({"OPENAI_API_KEY": OPENAI_KEY}, "openai", "m", base_url=f"{listener.url}/v1"))
    assert OPENAI_KEY not in _sent(listener)


def test_a_custom_base_url_gets_the_key_its_member_names() -> None:
    env = {"OPENAI_API_KEY": OPENAI_KEY, "MY_SERVER_KEY": OWN_KEY}
    with Listener(status=400) as listener:
        _call(_provider(env, "openai", "m", base_url=f"{listener.url}/v1", options={"api_key_env": "MY_SERVER_KEY"}))
    sent = _sent(listener)
    assert f"Bearer {OWN_KEY}" in sent and OPENAI_KEY not in sent


def test_gemini_key_is_not_sent_to_a_custom_base_url() -> None:
    gemini_key = "AIzaGeminiSecret0123456789abcdefDONOTSEND"
    with Listener(status=400) as listener:
        _call(_provider({"GEMINI_API_KEY": gemini_key}, "gemini", "gemini-2.0-flash", base_url=listener.url))
    assert gemini_key not in _sent(listener)


def test_without_base_url_the_default_key_is_still_required() -> None:
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        _provider({}, "openai", "gpt-4o-mini")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):  # built without settings: no key, whatever the environment
        make_provider("openai", "gpt-4o-mini")


def test_the_provider_reads_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key only in the process environment is not the provider's: it comes through the settings or not at all."""
    monkeypatch.setenv("MY_SERVER_KEY", OWN_KEY)
    with Listener(status=400) as listener:
        _call(make_provider("openai", "m", base_url=f"{listener.url}/v1", options={"api_key_env": "MY_SERVER_KEY"}))
    assert OWN_KEY not in _sent(listener)
    with pytest.raises(ValueError, match="come from the settings"):  # a member cannot smuggle keys in as options
        make_provider("openai", "m", base_url="http://127.0.0.1:9/v1", options={"api_keys": {"X": "y"}})
