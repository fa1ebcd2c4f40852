"""Real Redis and PostgreSQL for the tests.

Locally a missing service skips its tests with the reason; under CI (``CI=true``) it fails them,
so a green CI run can never mean "the Redis/PostgreSQL tests silently did not run".
"""

from __future__ import annotations

import os
import socket
import uuid
from typing import Iterator

import pytest

REDIS_URL = os.environ.get("LABEL_AUDIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
PG_ADMIN_URL = os.environ.get("LABEL_AUDIT_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def free_port() -> int:
    """A TCP port nothing listens on now (bind to 0 and release)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def missing_service(what: str) -> None:
    """Skip locally, fail in CI: CI machines start Redis and PostgreSQL, so absence is a bug there."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{what} is not reachable, and CI requires it")
    pytest.skip(f"{what} is not reachable on loopback")


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of a real Redis; each test should use its own key prefix or queue name."""
    if not port_open("127.0.0.1", 6379):
        missing_service("Redis at 127.0.0.1:6379")
    return REDIS_URL


@pytest.fixture()
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    if not port_open("127.0.0.1", 5432):
        missing_service("PostgreSQL at 127.0.0.1:5432")
    import psycopg

    name = f"la_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
