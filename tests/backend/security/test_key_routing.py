"""OPENAI_API_KEY / GEMINI_API_KEY go only to their own clouds; a custom base_url gets the key its member
names in ``options.api_key_env``, or none. Checked with a real local listener recording the headers."""

from __future__ import annotations

import pytest

from backend.providers.base import ProviderError
from backend.providers.registry import make_provider
from tests.backend.security.listener import Listener

OPENAI_KEY = "sk-openai-secret-0123456789abcdefDONOTSEND"
OWN_KEY = "own-server-key-0123456789"


def _call(provider) -> None:
    with pytest.raises(ProviderError):
        provider.classify("Answer: ", ["0", "1"], timeout=10)


def _sent(listener: Listener) -> str:
    assert listener.requests, "the provider never called the listener"
    return " ".join(f"{k}: {v}" for r in listener.requests for k, v in r["headers"].items())


def test_openai_key_is_not_sent_to_a_custom_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    with Listener(status=400) as listener:
        _call(make_provider("openai", "m", base_url=f"{listener.url}/v1"))
    assert OPENAI_KEY not in _sent(listener)


def test_a_custom_base_url_gets_the_key_its_member_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("MY_SERVER_KEY", OWN_KEY)
    with Listener(status=400) as listener:
        _call(make_provider("openai", "m", base_url=f"{listener.url}/v1", options={"api_key_env": "MY_SERVER_KEY"}))
    sent = _sent(listener)
    assert f"Bearer {OWN_KEY}" in sent and OPENAI_KEY not in sent


def test_gemini_key_is_not_sent_to_a_custom_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    gemini_key = "AIzaGeminiSecret0123456789abcdefDONOTSEND"
    monkeypatch.setenv("GEMINI_API_KEY", gemini_key)
    with Listener(status=400) as listener:
        _call(make_provider("gemini", "gemini-2.0-flash", base_url=listener.url))
    assert gemini_key not in _sent(listener)


def test_without_base_url_the_default_key_is_still_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        make_provider("openai", "gpt-4o-mini")
