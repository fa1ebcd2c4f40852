"""The review/source instance addresses come from options first, then the environment (read through settings)."""

from __future__ import annotations

import pytest

from backend.labelstudio.instances import review_connection_from_env, source_url_from_env


def test_source_url_falls_back_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:8080")
    assert source_url_from_env(None) == "http://127.0.0.1:8080"
    assert source_url_from_env("http://127.0.0.1:9000") == "http://127.0.0.1:9000"
    monkeypatch.delenv("LABEL_STUDIO_URL")
    assert source_url_from_env(None) is None


def test_review_connection_reads_url_and_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABEL_AUDIT_REVIEW_URL", "http://127.0.0.1:8081")
    monkeypatch.setenv("LABEL_AUDIT_REVIEW_API_KEY", "t" * 40)
    connection = review_connection_from_env(None)
    assert connection.url == "http://127.0.0.1:8081" and connection.token == "t" * 40
    assert review_connection_from_env("http://127.0.0.1:8082").url == "http://127.0.0.1:8082"
