"""The review/source instance addresses come from options first, then the settings (resolved from the environment)."""

from __future__ import annotations

from backend.config.settings import Settings
from backend.labelstudio.instances import review_connection, source_url


def test_source_url_falls_back_to_the_settings() -> None:
    settings = Settings.from_env({"LABEL_STUDIO_URL": "http://127.0.0.1:8080"})
    assert source_url(settings, None) == "http://127.0.0.1:8080"
    assert source_url(settings, "http://127.0.0.1:9000") == "http://127.0.0.1:9000"
    assert source_url(Settings.from_env({}), None) is None


def test_review_connection_reads_url_and_token_from_the_settings() -> None:
    settings = Settings.from_env({"LABEL_AUDIT_REVIEW_URL": "http://127.0.0.1:8081",
                                  "LABEL_AUDIT_REVIEW_API_KEY": "t" * 40})
    connection = review_connection(settings, None)
    assert connection.url == "http://127.0.0.1:8081" and connection.token == "t" * 40
    assert review_connection(settings, "http://127.0.0.1:8082").url == "http://127.0.0.1:8082"
    assert "t" * 40 in settings.secrets() and "t" * 40 not in repr(settings)
