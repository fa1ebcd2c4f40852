"""Error text is redacted before it is cut to length: key shapes, query-string secrets and the exact
value of every configured secret (a real listener echoes them back in an error body)."""

from __future__ import annotations

import pytest

from backend.providers.base import ProviderError
from backend.providers.http_errors import redact, status_message
from backend.providers.registry import make_provider
from tests.backend.security.listener import Listener

CONFIGURED = "lsTokenZ0123456789abcdefghijklmnopqrstuv"  # not key-shaped: only its exact value can catch it


def test_a_configured_secret_straddling_the_cut_leaks_nothing() -> None:
    text = "x" * 290 + CONFIGURED + " tail"
    message = status_message("openai", 400, text, secrets=(CONFIGURED,))
    assert CONFIGURED[:6] not in message


def test_a_short_key_prefix_at_the_cut_is_redacted() -> None:
    message = status_message("openai", 400, "y" * 295 + "sk-abcdefghijklmnop")
    assert "sk-ab" not in message and "sk-a" not in message


@pytest.mark.parametrize("query", ["?key=AIzaSecret", "?api_key=abc123secret", "&token=tok123secret",
                                   "?access_token=zzz999secret"])
def test_query_string_secrets_are_redacted(query: str) -> None:
    secret = query.split("=", 1)[1]
    assert secret not in redact(f"GET https://host/v1/models{query} failed")


def test_configured_secrets_from_settings_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    from backend.config.settings import Settings

    settings = Settings.from_env({"LABEL_STUDIO_API_KEY": CONFIGURED, "BASIC_AUTH_USER": "u",
                                  "BASIC_AUTH_PASS": "pass-word-secret-42"})
    text = f"oops {CONFIGURED} and pass-word-secret-42"
    cleaned = redact(text, settings.secrets())
    assert CONFIGURED not in cleaned and "pass-word-secret-42" not in cleaned


def test_provider_error_from_a_real_server_is_redacted_before_the_cut() -> None:
    from backend.providers.provider_settings import ProviderSettings

    body = {"error": {"message": "z" * 260 + f" you sent {CONFIGURED} via https://h/x?api_key=qs-secret-1"}}
    with Listener(status=400, body=body) as listener:
        provider = make_provider("openai", "m", base_url=f"{listener.url}/v1", options={"api_key_env": "MY_SERVER_KEY"},
                                 settings=ProviderSettings(keys={"MY_SERVER_KEY": CONFIGURED}))
        with pytest.raises(ProviderError) as failed:
            provider.classify("Answer: ", ["0", "1"], timeout=10)
    message = str(failed.value)
    assert CONFIGURED[:6] not in message and "qs-secret-1" not in message
